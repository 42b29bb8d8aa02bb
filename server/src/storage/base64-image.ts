/**
 * @module Pictures sent inline as base64 text (POST /ai-photo-upload's `images`): plain
 * base64 or a `data:<type>;base64,` URI, line breaks allowed (MIME wraps at 76), the standard
 * or the URL-safe alphabet, padding optional. Strict where Node's decoder is lenient (it
 * skips characters it does not know, so "not base64" would quietly decode to garbage), and
 * the size is judged from the text's length before anything is decoded. The declared type of
 * a data URI is ignored: the bytes decide (image-type.ts).
 */

export type Base64Decoded = { ok: true; data: Buffer } | { ok: false; problem: string };

const DATA_URI = /^data:[^,]*?;base64,/i;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/** Decoded size of base64 text without whitespace, exactly (padding or not). */
function decodedLength(text: string): number {
  const padding = text.endsWith('==') ? 2 : text.endsWith('=') ? 1 : 0;
  const chars = text.length - padding;
  return Math.floor((chars * 3) / 4);
}

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/**
 * The bytes of `text`, or what is wrong with it as a phrase to follow a field name
 * (`images[3]: not base64`).
 *
 * @example
 * decodeBase64Image('data:image/png;base64,iVBORw0KGgo=', 1024) // { ok: true, data: <Buffer 89 50 4e 47 …> }
 * decodeBase64Image('not base64!', 1024) // { ok: false, problem: 'not base64 (or a data:…;base64, URI)' }
 */
export function decodeBase64Image(text: string, maxBytes: number): Base64Decoded {
  let body = text.trim();
  if (/^data:/i.test(body)) {
    const prefix = DATA_URI.exec(body);
    if (!prefix) return { ok: false, problem: 'a data: URI must carry base64 (data:image/jpeg;base64,…)' };
    body = body.slice(prefix[0].length);
  }
  // the length is checked before the whitespace is taken out, so a huge string costs nothing more
  if (decodedLength(body) > maxBytes * 1.05 + 1024) return { ok: false, problem: `larger than ${megabytes(maxBytes)}` };
  body = body.replace(/\s+/g, '');
  if (body.length === 0) return { ok: false, problem: 'empty' };
  if (!BASE64.test(body) || body.length % 4 === 1 || (body.endsWith('=') && body.length % 4 !== 0)) {
    return { ok: false, problem: 'not base64 (or a data:…;base64, URI)' };
  }
  if (decodedLength(body) > maxBytes) return { ok: false, problem: `larger than ${megabytes(maxBytes)}` };
  return { ok: true, data: Buffer.from(body, 'base64') };
}
