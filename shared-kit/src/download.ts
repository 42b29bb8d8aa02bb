/** Saves a blob under a file name through a temporary link (the browser's download). */
export function saveBlob(blob: Blob, fileName: string): void {
  const href = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = href;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  // Revoked on the next task: the browser must have started reading the blob first.
  setTimeout(() => URL.revokeObjectURL(href), 0);
}
