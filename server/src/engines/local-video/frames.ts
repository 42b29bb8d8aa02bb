/**
 * @module The frames of a local video: a camera move (a zoom with a drift, eased) over a
 * still "scene" (the local engine's procedural picture of the prompt, or a picture the user
 * gave), optionally dissolving into a second scene (an end frame), with the SIMULATED caption
 * burned into every frame. libvips crops and scales each frame on its own threads; the
 * dissolve and the caption are a few multiply-adds per pixel here.
 */
import sharp from 'sharp';
import { EngineError } from '../engine.ts';
import type { VideoAspectRatio } from '../jobs/video.ts';
import { tileSvg } from '../local/procedural.ts';
import type { HashStream } from '../local/random.ts';
import { TEXT_HEIGHT_UNITS, textPath, textWidth } from '../local/pixel-font.ts';

export interface FrameSize {
  width: number;
  height: number;
}

/** RGB pixels a camera moves over; `OVERSCAN` times the frame, so a zoom never enlarges. */
export interface Scene {
  data: Buffer;
  width: number;
  height: number;
}

/** Where the camera looks: `zoom` ≥ 1 (1 shows the whole scene), centre `x`, `y` in 0–1 of the scene. */
export interface Camera {
  zoom: number;
  x: number;
  y: number;
}

export interface Shot {
  seconds: number;
  scene: Scene;
  /** Dissolved into over the second half (an end frame). */
  fadeTo?: Scene;
  from: Camera;
  to: Camera;
  /** Out and back: the last frame is the first (Luma's loop). */
  loop?: boolean;
}

const OVERSCAN = 1.5;

/** Largest picture a user gives that is decoded (the image fetcher's limit too). */
const MAX_INPUT_PIXELS = 40_000_000;

const RATIOS: Record<VideoAspectRatio, [number, number]> = {
  '1:1': [1, 1],
  '16:9': [16, 9],
  '9:16': [9, 16],
  '4:3': [4, 3],
  '3:4': [3, 4],
  '21:9': [21, 9],
  '9:21': [9, 21],
};

const even = (value: number) => Math.max(2, Math.round(value / 2) * 2);

/** A frame of `ratio` whose short side is `shortSide` (even sides, as H.264 needs). */
export function frameFor(ratio: VideoAspectRatio, shortSide: number): FrameSize {
  const [w, h] = RATIOS[ratio];
  return w >= h ? { width: even((shortSide * w) / h), height: even(shortSide) } : { width: even(shortSide), height: even((shortSide * h) / w) };
}

/** The offered ratio nearest to a picture's own (a start image sets the frame's shape). */
export function nearestRatio(width: number, height: number, offered: readonly VideoAspectRatio[]): VideoAspectRatio {
  const target = Math.log(width / height);
  let best = offered[0];
  for (const ratio of offered) {
    const [w, h] = RATIOS[ratio];
    if (Math.abs(Math.log(w / h) - target) < Math.abs(Math.log(RATIOS[best][0] / RATIOS[best][1]) - target)) best = ratio;
  }
  return best;
}

function sceneSize(frame: FrameSize): FrameSize {
  return { width: even(frame.width * OVERSCAN), height: even(frame.height * OVERSCAN) };
}

/** The local engine's procedural picture of the prompt, without its caption (the frames get their own). */
export async function proceduralScene(prompt: string, seed: number, variant: number, frame: FrameSize): Promise<Scene> {
  const size = sceneSize(frame);
  const svg = tileSvg({ prompt, seed, variant, ...size, style: 'midjourney', caption: null });
  const { data, info } = await sharp(Buffer.from(svg)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** A picture the user gave, covering the scene (cropped to the frame's shape around what draws the eye). */
export async function imageScene(image: Uint8Array, frame: FrameSize, which: string): Promise<Scene> {
  const size = sceneSize(frame);
  try {
    const { data, info } = await sharp(image, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize(size.width, size.height, { fit: 'cover', position: sharp.strategy.attention })
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  } catch (error) {
    throw new EngineError('invalid_input', `The ${which} image could not be read.`, { detail: String(error), cause: error });
  }
}

/** The shape of a picture the user gave (to frame an image-to-video clip like its start image). */
export async function imageShape(image: Uint8Array, which: string): Promise<FrameSize> {
  try {
    const meta = await sharp(image, { limitInputPixels: MAX_INPUT_PIXELS }).metadata();
    const turned = (meta.orientation ?? 1) >= 5;
    if (!meta.width || !meta.height) throw new Error('no size');
    return turned ? { width: meta.height, height: meta.width } : { width: meta.width, height: meta.height };
  } catch (error) {
    throw new EngineError('invalid_input', `The ${which} image could not be read.`, { detail: String(error), cause: error });
  }
}

/**
 * A seeded camera move: a zoom in or out between 1 and 1.2–1.25 (`low`) or 1.35–1.5 (`high`),
 * drifting the centre as far as the zoom allows.
 */
export function cameraMove(stream: HashStream, motion: 'low' | 'high'): { from: Camera; to: Camera } {
  const zoom = motion === 'high' ? stream.range(1.35, 1.5) : stream.range(1.2, 1.25);
  const room = (1 - 1 / zoom) / 2; // how far the centre can move at that zoom
  const near: Camera = { zoom: 1, x: 0.5, y: 0.5 };
  const far: Camera = { zoom, x: 0.5 + stream.range(-room, room), y: 0.5 + stream.range(-room, room) * 0.6 };
  return stream.next() < 0.6 ? { from: near, to: far } : { from: far, to: near };
}

const smoothstep = (t: number) => t * t * (3 - 2 * t);
const lerp = (a: number, b: number, t: number) => a + (b - a) * t;

/** The crop of `scene` the camera sees, in whole pixels, kept inside the scene. */
function cropOf(scene: Scene, camera: Camera): { left: number; top: number; width: number; height: number } {
  const width = Math.min(scene.width, Math.max(2, Math.round(scene.width / camera.zoom)));
  const height = Math.min(scene.height, Math.max(2, Math.round(scene.height / camera.zoom)));
  const clamp = (value: number, max: number) => Math.min(Math.max(0, Math.round(value)), max);
  return {
    left: clamp(camera.x * scene.width - width / 2, scene.width - width),
    top: clamp(camera.y * scene.height - height / 2, scene.height - height),
    width,
    height,
  };
}

function view(scene: Scene, camera: Camera, frame: FrameSize): Promise<Buffer> {
  return sharp(scene.data, { raw: { width: scene.width, height: scene.height, channels: 3 } })
    .extract(cropOf(scene, camera))
    .resize(frame.width, frame.height, { fit: 'fill', kernel: 'cubic' })
    .raw()
    .toBuffer();
}

/** The caption strip, rasterised once per video: RGBA rows laid over the bottom of each frame. */
export interface Caption {
  top: number;
  rgba: Buffer;
}

/** A dark strip along the bottom with `text` in the engine's pixel font, sized to the frame. */
export async function caption(text: string, frame: FrameSize): Promise<Caption> {
  const bar = Math.max(12, Math.round(Math.min(frame.width, frame.height) * 0.07));
  const margin = Math.round(bar * 0.4);
  const scale = Math.max(1, Math.min(Math.floor((bar * 0.6) / TEXT_HEIGHT_UNITS), Math.floor((frame.width - 2 * margin) / Math.max(1, textWidth(text, 1)))));
  const top = Math.round((bar - TEXT_HEIGHT_UNITS * scale) / 2);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${frame.width}" height="${bar}"><rect width="${frame.width}" height="${bar}" fill="#000" opacity="0.62"/><path d="${textPath(text, margin, top, scale)}" fill="#fff"/></svg>`;
  const rgba = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer();
  return { top: frame.height - bar, rgba };
}

/** RGB views (and a dissolve weight) → one RGBA frame with the caption laid over. */
function compose(frame: FrameSize, a: Buffer, b: Buffer | undefined, weight: number, label: Caption): Uint8Array {
  const pixels = frame.width * frame.height;
  const out = new Uint8Array(pixels * 4);
  const captionStart = label.top * frame.width;
  for (let p = 0; p < pixels; p += 1) {
    const i = p * 3;
    let r = a[i];
    let g = a[i + 1];
    let bl = a[i + 2];
    if (b) {
      r += (b[i] - r) * weight;
      g += (b[i + 1] - g) * weight;
      bl += (b[i + 2] - bl) * weight;
    }
    if (p >= captionStart) {
      const j = (p - captionStart) * 4;
      const alpha = label.rgba[j + 3] / 255;
      r += (label.rgba[j] - r) * alpha;
      g += (label.rgba[j + 1] - g) * alpha;
      bl += (label.rgba[j + 2] - bl) * alpha;
    }
    const o = p * 4;
    out[o] = r;
    out[o + 1] = g;
    out[o + 2] = bl;
    out[o + 3] = 255;
  }
  return out;
}

/** How many frames a shot of `seconds` has at `fps`. */
export const frameCount = (seconds: number, fps: number) => Math.max(1, Math.round(seconds * fps));

/** The frames of a shot, in order, as RGBA. */
export async function* shotFrames(shot: Shot, frame: FrameSize, fps: number, label: Caption): AsyncGenerator<Uint8Array> {
  const count = frameCount(shot.seconds, fps);
  for (let i = 0; i < count; i += 1) {
    const linear = count === 1 ? 0 : i / (count - 1);
    const t = smoothstep(shot.loop ? 1 - Math.abs(2 * linear - 1) : linear);
    const camera: Camera = { zoom: lerp(shot.from.zoom, shot.to.zoom, t), x: lerp(shot.from.x, shot.to.x, t), y: lerp(shot.from.y, shot.to.y, t) };
    // the end frame takes over across the second half
    const weight = shot.fadeTo ? smoothstep(Math.min(1, Math.max(0, (linear - 0.4) / 0.5))) : 0;
    const [a, b] = await Promise.all([view(shot.scene, camera, frame), shot.fadeTo && weight > 0 ? view(shot.fadeTo, camera, frame) : undefined]);
    yield compose(frame, a, b, weight, label);
  }
}

/** A JPEG of an RGBA frame (the poster: the video's first frame). */
export function jpegOf(rgba: Uint8Array, frame: FrameSize): Promise<Buffer> {
  return sharp(rgba, { raw: { width: frame.width, height: frame.height, channels: 4 } })
    .removeAlpha()
    .jpeg({ quality: 85, mozjpeg: true })
    .toBuffer();
}
