/**
 * @module The size of generated photos and the framing of a template into it: the template
 * scaled to cover the frame with its face placed a little above the middle; when covering
 * would make the face too large (a close template in a wide frame), it is scaled down and the
 * bands beside it filled with a blurred, darkened copy of itself.
 */
import sharp, { type Sharp } from 'sharp';
import type { AspectRatio } from '../../engine.ts';
import type { Point } from '../face-models.ts';
import type { FaceAnalysis, RgbImage } from '../protocol.ts';

const RATIOS: Record<AspectRatio, [number, number]> = {
  '1:1': [1, 1],
  '16:9': [16, 9],
  '9:16': [9, 16],
  '4:3': [4, 3],
  '3:4': [3, 4],
  '3:2': [3, 2],
  '2:3': [2, 3],
};

const MIN_SIDE = 256;
export const MAX_SIDE = 2048;
/** Long side when only an aspect ratio (or nothing) is asked for. */
const DEFAULT_LONG_SIDE = 1024;
/** The face box may take at most this share of the frame's width and of its height. */
const MAX_FACE_SHARE = 0.6;
/** Height of the face's centre, as a share of the frame's height. */
const FACE_LINE = 0.42;

const even = (value: number) => Math.min(MAX_SIDE, Math.max(MIN_SIDE, Math.round(value / 2) * 2));

/**
 * Width and height: both given → each kept within 256–2048; one given → the other from the
 * aspect ratio (default 1:1); none → 1024 on the long side of the aspect ratio.
 */
export function outputSize(request: { aspectRatio?: AspectRatio; width?: number; height?: number }): { width: number; height: number } {
  const [rw, rh] = RATIOS[request.aspectRatio ?? '1:1'];
  const { width, height } = request;
  if (width && height) return { width: even(width), height: even(height) };
  if (width) return { width: even(width), height: even((width * rh) / rw) };
  if (height) return { width: even((height * rw) / rh), height: even(height) };
  return rw >= rh
    ? { width: even(DEFAULT_LONG_SIDE), height: even((DEFAULT_LONG_SIDE * rh) / rw) }
    : { width: even((DEFAULT_LONG_SIDE * rw) / rh), height: even(DEFAULT_LONG_SIDE) };
}

export interface FramedTemplate {
  image: RgbImage;
  /** The template face's mesh in the frame's pixels. */
  mesh: Point[];
}

async function raw(pipeline: Sharp): Promise<RgbImage> {
  const { data, info } = await pipeline.removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

const fromRgb = (image: RgbImage) => sharp(image.data, { raw: { width: image.width, height: image.height, channels: 3 } });

/** Where the scaled template goes along one axis: covering the frame when it can, else centred. */
function place(length: number, frame: number, wanted: number): number {
  if (length <= frame) return Math.round((frame - length) / 2);
  return Math.round(Math.min(0, Math.max(frame - length, wanted)));
}

/** `template` framed into `width` × `height`; `zoom` > 1 cuts closer (repeated templates). */
export async function frameTemplate(template: RgbImage, face: FaceAnalysis, width: number, height: number, zoom = 1): Promise<FramedTemplate> {
  const [fx, fy, fw, fh] = face.box;
  const cover = Math.max(width / template.width, height / template.height) * zoom;
  const scale = Math.min(cover, (MAX_FACE_SHARE * width) / fw, (MAX_FACE_SHARE * height) / fh);
  const scaledWidth = Math.max(1, Math.round(template.width * scale));
  const scaledHeight = Math.max(1, Math.round(template.height * scale));
  const sx = scaledWidth / template.width;
  const sy = scaledHeight / template.height;
  const left = place(scaledWidth, width, width / 2 - (fx + fw / 2) * sx);
  const top = place(scaledHeight, height, FACE_LINE * height - (fy + fh / 2) * sy);
  const scaled = await raw(fromRgb(template).resize(scaledWidth, scaledHeight, { kernel: 'lanczos3' }));
  // the part of the scaled template inside the frame
  const visible = {
    left: Math.max(0, -left),
    top: Math.max(0, -top),
    width: Math.min(scaledWidth, width - Math.max(0, left)),
    height: Math.min(scaledHeight, height - Math.max(0, top)),
  };
  visible.width = Math.min(visible.width, scaledWidth - visible.left);
  visible.height = Math.min(visible.height, scaledHeight - visible.top);
  const cut = fromRgb(scaled).extract(visible);
  let image: RgbImage;
  if (visible.width === width && visible.height === height) {
    image = await raw(cut);
  } else {
    const fill = await fromRgb(template)
      .resize(width, height, { fit: 'cover' })
      .blur(Math.max(8, width / 40))
      .modulate({ brightness: 0.75 })
      .raw()
      .toBuffer();
    const inner = await raw(cut);
    image = await raw(
      sharp(fill, { raw: { width, height, channels: 3 } }).composite([
        { input: Buffer.from(inner.data), raw: { width: inner.width, height: inner.height, channels: 3 }, left: Math.max(0, left), top: Math.max(0, top) },
      ]),
    );
  }
  // pixel centres: x in the template is (x + ½)·sx − ½ in the scaled copy
  return { image, mesh: face.mesh.map(([x, y]): Point => [(x + 0.5) * sx - 0.5 + left, (y + 0.5) * sy - 0.5 + top]) };
}
