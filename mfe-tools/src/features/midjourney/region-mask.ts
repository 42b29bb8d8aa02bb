// Vary Region's mask: what the user marked on the picture (brush strokes, rectangles), in the
// picture's own pixels, rasterised and encoded as a PNG the size of the picture, white where
// marked and black elsewhere (POST /inpaint `mask`). Pure, so the encoding is tested byte by
// byte (test/region-mask.test.ts); the editor draws the same shapes on a canvas for the eye.

export type MaskPoint = { x: number; y: number };

/** A brush stroke is the set of points within `radius` of its polyline (round caps and joins, as a canvas draws it). */
export type MaskShape = { kind: 'stroke'; radius: number; points: MaskPoint[] } | { kind: 'rect'; x: number; y: number; width: number; height: number };

export type MaskRect = { x: number; y: number; width: number; height: number };

const WHITE = 255;

/** True when the shapes mark no pixel of a `width`×`height` picture. */
export function isMaskEmpty(shapes: readonly MaskShape[], width: number, height: number): boolean {
  return !rasterizeMask(shapes, width, height).includes(WHITE);
}

/** One byte per pixel, row by row: 255 where a shape covers the pixel's centre, else 0. */
export function rasterizeMask(shapes: readonly MaskShape[], width: number, height: number): Uint8Array {
  const pixels = new Uint8Array(width * height);
  for (const shape of shapes) {
    if (shape.kind === 'rect') fillRect(pixels, width, height, shape);
    else fillStroke(pixels, width, height, shape.points, shape.radius);
  }
  return pixels;
}

function fillRect(pixels: Uint8Array, width: number, height: number, r: MaskRect) {
  const x0 = Math.max(0, Math.ceil(Math.min(r.x, r.x + r.width) - 0.5));
  const x1 = Math.min(width - 1, Math.floor(Math.max(r.x, r.x + r.width) - 0.5));
  const y0 = Math.max(0, Math.ceil(Math.min(r.y, r.y + r.height) - 0.5));
  const y1 = Math.min(height - 1, Math.floor(Math.max(r.y, r.y + r.height) - 0.5));
  for (let y = y0; y <= y1; y++) pixels.fill(WHITE, y * width + x0, y * width + x1 + 1);
}

function fillStroke(pixels: Uint8Array, width: number, height: number, points: readonly MaskPoint[], radius: number) {
  if (points.length === 0 || radius <= 0) return;
  const r2 = radius * radius;
  for (let i = 0; i < Math.max(1, points.length - 1); i++) {
    const a = points[i]!;
    const b = points[Math.min(i + 1, points.length - 1)]!;
    const x0 = Math.max(0, Math.floor(Math.min(a.x, b.x) - radius));
    const x1 = Math.min(width - 1, Math.ceil(Math.max(a.x, b.x) + radius));
    const y0 = Math.max(0, Math.floor(Math.min(a.y, b.y) - radius));
    const y1 = Math.min(height - 1, Math.ceil(Math.max(a.y, b.y) + radius));
    const dx = b.x - a.x;
    const dy = b.y - a.y;
    const len2 = dx * dx + dy * dy;
    for (let y = y0; y <= y1; y++) {
      const py = y + 0.5;
      for (let x = x0; x <= x1; x++) {
        const px = x + 0.5;
        // Distance from the pixel centre to the segment a–b.
        const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((px - a.x) * dx + (py - a.y) * dy) / len2));
        const ex = px - (a.x + t * dx);
        const ey = py - (a.y + t * dy);
        if (ex * ex + ey * ey <= r2) pixels[y * width + x] = WHITE;
      }
    }
  }
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of bytes) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** A zlib stream of stored (uncompressed) blocks: valid everywhere, used where CompressionStream is missing. */
function zlibStored(data: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(data.length / 65535));
  const out = new Uint8Array(2 + data.length + blocks * 5 + 4);
  out[0] = 0x78;
  out[1] = 0x01;
  let o = 2;
  for (let i = 0; i < blocks; i++) {
    const chunk = data.subarray(i * 65535, (i + 1) * 65535);
    out[o++] = i === blocks - 1 ? 1 : 0;
    out[o++] = chunk.length & 0xff;
    out[o++] = chunk.length >>> 8;
    out[o++] = ~chunk.length & 0xff;
    out[o++] = (~chunk.length >>> 8) & 0xff;
    out.set(chunk, o);
    o += chunk.length;
  }
  new DataView(out.buffer).setUint32(o, adler32(data));
  return out;
}

async function zlibDeflate(data: Uint8Array): Promise<Uint8Array> {
  const stream = new CompressionStream('deflate');
  const writer = stream.writable.getWriter();
  void writer.write(data as Uint8Array<ArrayBuffer>).then(() => writer.close());
  const reader = stream.readable.getReader();
  const parts: Uint8Array[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * An 8-bit greyscale PNG of `pixels` (one byte each, row by row). Compressed with the
 * platform's CompressionStream (a mostly black mask shrinks to a few KB); without it, stored
 * blocks, still a valid PNG.
 */
export async function encodeGreyPng(
  pixels: Uint8Array,
  width: number,
  height: number,
  { compress = typeof CompressionStream === 'function' } = {},
): Promise<Uint8Array> {
  if (pixels.length !== width * height) throw new Error(`expected ${width * height} pixels, got ${pixels.length}`);
  const header = new Uint8Array(13);
  const hv = new DataView(header.buffer);
  hv.setUint32(0, width);
  hv.setUint32(4, height);
  header[8] = 8; // bit depth
  header[9] = 0; // greyscale
  // compression, filter and interlace methods stay 0
  const raw = new Uint8Array((width + 1) * height);
  for (let y = 0; y < height; y++) raw.set(pixels.subarray(y * width, (y + 1) * width), y * (width + 1) + 1); // filter byte 0: none
  const idat = compress ? await zlibDeflate(raw) : zlibStored(raw);
  const parts = [new Uint8Array(PNG_SIGNATURE), chunk('IHDR', header), chunk('IDAT', idat), chunk('IEND', new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The mask POST /inpaint takes: base64 of a PNG the size of the picture, white = the region to vary. */
export async function encodeMask(shapes: readonly MaskShape[], width: number, height: number): Promise<string> {
  return bytesToBase64(await encodeGreyPng(rasterizeMask(shapes, width, height), width, height));
}

/** Keeps a rectangle inside the picture and at least `min` pixels on each side. */
export function clampRect(r: MaskRect, width: number, height: number, min = 1): MaskRect {
  const w = Math.min(width, Math.max(min, r.width));
  const h = Math.min(height, Math.max(min, r.height));
  return { x: Math.min(width - w, Math.max(0, r.x)), y: Math.min(height - h, Math.max(0, r.y)), width: w, height: h };
}

export type SelectionKey = 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight';

/**
 * The keyboard rectangle: arrow keys move it by `step` of the picture's size, with Shift they
 * grow or shrink it (Right/Down grow, Left/Up shrink). Returns the rectangle kept inside the picture.
 */
export function moveSelection(r: MaskRect, key: SelectionKey, resize: boolean, width: number, height: number, step = 0.05): MaskRect {
  const sx = Math.max(1, Math.round(width * step));
  const sy = Math.max(1, Math.round(height * step));
  const dx = key === 'ArrowLeft' ? -sx : key === 'ArrowRight' ? sx : 0;
  const dy = key === 'ArrowUp' ? -sy : key === 'ArrowDown' ? sy : 0;
  const next = resize ? { ...r, width: r.width + dx, height: r.height + dy } : { ...r, x: r.x + dx, y: r.y + dy };
  return clampRect(next, width, height, Math.max(sx, sy));
}

/** The rectangle between two corners, in any order. */
export function rectFromCorners(a: MaskPoint, b: MaskPoint): MaskRect {
  return { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), width: Math.abs(b.x - a.x), height: Math.abs(b.y - a.y) };
}
