// Turning the chosen photos into what POST /ai-photo-upload takes: base64 of each photo's bytes,
// scaled down first when a photo is much larger than any engine reads. 30 phone photos as they
// are (4–6 MB each) would not fit the request the server accepts (100 MB of base64); the engines
// read at most 1024–2048 px a side, so nothing they use is lost.
import { scaledSize } from './ai-photos-rules.ts';

/** A file's bytes as base64 (the data URL's payload). */
export function readAsBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const url = String(reader.result);
      resolve(url.slice(url.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });
}

/** JPEG quality of a scaled-down photo: high, since faces are what is learned from. */
const JPEG_QUALITY = 0.92;

/**
 * The photo to send: the file itself when it is small enough, else a JPEG scaled to fit
 * (EXIF orientation applied by the decoder). Where the browser cannot decode or draw it, the
 * original goes and the server judges it.
 */
export async function shrinkPhoto(file: File, size: { width: number; height: number } | null): Promise<Blob> {
  const target = size ? scaledSize(size, file.size) : null;
  if (!target || typeof createImageBitmap !== 'function' || typeof document === 'undefined') return file;
  try {
    const bitmap = await createImageBitmap(file, { imageOrientation: 'from-image' });
    const canvas = document.createElement('canvas');
    // The decoder may have turned the picture (EXIF): scale what it produced.
    const fit = scaledSize({ width: bitmap.width, height: bitmap.height }, Number.POSITIVE_INFINITY) ?? target;
    canvas.width = fit.width;
    canvas.height = fit.height;
    const context = canvas.getContext('2d');
    if (!context) return file;
    context.imageSmoothingQuality = 'high';
    context.drawImage(bitmap, 0, 0, fit.width, fit.height);
    bitmap.close();
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', JPEG_QUALITY));
    return blob && blob.size < file.size ? blob : file;
  } catch {
    return file;
  }
}
