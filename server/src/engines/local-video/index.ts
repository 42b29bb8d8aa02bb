/**
 * @module The local (embedded) video engine: every video kind (Luma, Kling, Runway,
 * Midjourney video) as a short, real, playable MP4 (H.264, "fast start") whose content is
 * simulated: a seeded camera move over the local engine's procedural picture of the prompt,
 * or over the start image the user gave (dissolving into the end image when one is given),
 * with a SIMULATED caption in every frame and the first frame as the poster. The encoder is
 * h264-mp4-encoder (WebAssembly, inside its npm package; docs/decisions/0008) on its own
 * thread. An extension keeps the parent video's frames as they are and appends a new segment.
 * Kling's try-on answers a labelled picture with the garment beside the person.
 */
import { randomInt } from 'node:crypto';
import { defineEngine, throwIfAborted } from '../define-engine.ts';
import { type Engine, type EngineJob, type EngineJobKind, type EngineResult, EngineError, type ImageInput, type ProgressListener } from '../engine.ts';
import { VIDEO_JOB_KINDS, type VideoAspectRatio, type VideoMotion, type VideoParentRef } from '../jobs/video.ts';
import { HashStream } from '../local/random.ts';
import { openEncoder } from './encoder.ts';
import {
  type Caption,
  caption,
  cameraMove,
  type FrameSize,
  frameCount,
  frameFor,
  imageScene,
  imageShape,
  jpegOf,
  nearestRatio,
  proceduralScene,
  type Shot,
  shotFrames,
} from './frames.ts';
import { h264Keyframes, type Mp4Video, Mp4Error, readMp4, sampleBytes, writeMp4 } from './mp4.ts';
import { tryOnPicture } from './tryon.ts';

export { closeLocalVideoEncoder } from './encoder.ts';

export interface LocalVideoEngineOptions {
  /** The short side of a frame in pixels (Kling's pro mode gets 1.5×). Default 360. */
  shortSide?: number;
  /** Frames per second. Default 24. */
  fps?: number;
  /** H.264 quantiser (10 best … 51). Default 28. */
  qp?: number;
  /** minih264's speed, 0 (smallest files) … 10 (fastest). Default 10: ~20 % faster than 6 for ~30 % larger files (still ~35 KB a second at 640×360). */
  speed?: number;
}

/** What a clip is encoded with unless the options say otherwise (the bench encodes its baseline the same way). */
export const VIDEO_DEFAULTS = { shortSide: 360, fps: 24, qp: 28, speed: 10 } as const;

/** Longest video an extension may produce (the submit refuses such an extension first). */
const MAX_VIDEO_SECONDS = 120;

const ENGINE = 'local-video';
const KINDS: readonly EngineJobKind[] = VIDEO_JOB_KINDS;
const UPSTREAM_RATIOS: readonly VideoAspectRatio[] = ['1:1', '16:9', '9:16', '4:3', '3:4', '21:9'];
const MIDJOURNEY_CLIPS = 4;
const MIDJOURNEY_SECONDS = 5;
const MIDJOURNEY_EXTEND_SECONDS = 4;
const LUMA_SECONDS = 5;

const NOT_A_MODEL = 'not a generative video model';

/** One video to make: its shots, or a parent's frames followed by them. */
interface VideoPlan {
  frame: FrameSize;
  fps: number;
  shots: Shot[];
  /** The parent video this one continues (its samples come first, unchanged) and its poster. */
  parent?: { file: Buffer; mp4: Mp4Video; poster?: { data: Buffer; contentType: string } };
}

interface Made {
  mp4: Buffer;
  poster: { data: Buffer; contentType: string };
  frame: FrameSize;
  durationSec: number;
}

function newSeed(): number {
  return randomInt(0, 2 ** 31 - 1);
}

/** A parent's stored video, readable as one of ours (an H.264 MP4), or a clear failure. */
function parentVideo(parent: VideoParentRef): { file: Buffer; mp4: Mp4Video; fps: number; poster?: { data: Buffer; contentType: string } } {
  let mp4: Mp4Video;
  try {
    mp4 = readMp4(parent.video.data);
  } catch (error) {
    if (!(error instanceof Mp4Error)) throw error;
    throw new EngineError('unsupported', 'The local engine can only extend MP4 (H.264) videos; this one cannot be read.', { detail: error.message });
  }
  if (mp4.codec !== 'avc1' || mp4.samples.length === 0)
    throw new EngineError('unsupported', 'The local engine can only extend H.264 videos.', { detail: mp4.codec });
  const fps = Math.max(1, Math.round(mp4.timescale / mp4.samples[0].duration));
  const poster = parent.poster ? { data: parent.poster.data, contentType: parent.poster.contentType } : undefined;
  return { file: parent.video.data, mp4, fps, poster };
}

export function createLocalVideoEngine(options: LocalVideoEngineOptions = {}): Engine {
  const shortSide = options.shortSide ?? VIDEO_DEFAULTS.shortSide;
  const fps = options.fps ?? VIDEO_DEFAULTS.fps;
  const qp = options.qp ?? VIDEO_DEFAULTS.qp;
  const speed = options.speed ?? VIDEO_DEFAULTS.speed;

  /** Encodes a plan (after its parent's frames, when it has one) into a fast-start MP4 and its poster. */
  async function encodePlan(plan: VideoPlan, label: Caption, onFrame: () => void, signal: AbortSignal): Promise<Made> {
    const { frame } = plan;
    const encoder = openEncoder({ ...frame, fps: plan.fps, qp, speed, gop: plan.fps }, signal);
    let first: Buffer | undefined;
    try {
      for (const shot of plan.shots) {
        for await (const rgba of shotFrames(shot, frame, plan.fps, label)) {
          throwIfAborted(signal);
          first ??= await jpegOf(rgba, frame);
          await encoder.addFrame(rgba);
          onFrame();
        }
      }
      throwIfAborted(signal);
    } catch (error) {
      encoder.abort();
      throw error;
    }
    const file = await encoder.finish();
    const made = readMp4(file);
    const keyframes = h264Keyframes(file, made);
    const fresh = sampleBytes(file, made).map((data, i) => ({ data, duration: made.samples[i].duration, sync: keyframes[i] }));
    let samples = fresh;
    let timescale = made.timescale;
    if (plan.parent) {
      const { mp4: before, file: parentFile } = plan.parent;
      // one sample entry describes both parts only when the encoder was set up the same way
      if (!before.sampleEntry.equals(made.sampleEntry)) {
        throw new EngineError('unsupported', 'The local engine can only extend videos it made; this one was encoded differently.');
      }
      const parentKeyframes = h264Keyframes(parentFile, before);
      timescale = before.timescale;
      const rescale = (duration: number) => Math.round((duration * before.timescale) / made.timescale);
      samples = [
        ...sampleBytes(parentFile, before).map((data, i) => ({ data, duration: before.samples[i].duration, sync: parentKeyframes[i] })),
        ...fresh.map((s) => ({ ...s, duration: rescale(s.duration) })),
      ];
    }
    const mp4 = writeMp4({ ...frame, timescale, sampleEntry: made.sampleEntry, samples });
    // the poster is the first frame a viewer sees: an extension's is its parent's
    const poster = plan.parent?.poster ?? { data: first as Buffer, contentType: 'image/jpeg' };
    return { mp4, poster, frame, durationSec: samples.reduce((sum, s) => sum + s.duration, 0) / timescale };
  }

  /** Encodes every plan in turn, reporting progress by frames, into a video result. */
  async function videosResult(plans: VideoPlan[], label: Caption, report: ProgressListener, signal: AbortSignal, about: ResultText): Promise<EngineResult> {
    const total = plans.reduce((sum, plan) => sum + plan.shots.reduce((n, shot) => n + frameCount(shot.seconds, plan.fps), 0), 0);
    let done = 0;
    const onFrame = () => {
      done += 1;
      if (done % 6 === 0) report({ percentage: 5 + Math.round((90 * done) / total) });
    };
    const made: Made[] = [];
    for (const plan of plans) made.push(await encodePlan(plan, label, onFrame, signal));
    const { frame } = made[0];
    return {
      engine: ENGINE,
      method: about.method,
      simulated: true,
      note: about.note,
      layout: 'none',
      images: [],
      width: frame.width,
      height: frame.height,
      seed: about.seed,
      videos: made.map((video) => ({
        file: { source: 'buffer', data: video.mp4, contentType: 'video/mp4' },
        poster: { source: 'buffer', ...video.poster, ...video.frame },
        ...video.frame,
        durationSec: Math.round(video.durationSec * 1000) / 1000,
      })),
      data: { frame_rate: plans[0].fps, codec: 'h264', ...(about.ignored.length ? { ignored_options: about.ignored } : {}) },
    };
  }

  const labelText = (seed: number) => `SIMULATED VIDEO  SEED ${seed}`;

  async function run(job: EngineJob, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
    report({ percentage: 2, status: 'running' });
    const seed = newSeed();
    const stream = (variant: number) => new HashStream('local-video', seed, variant);
    const move = (variant: number, motion: VideoMotion) => cameraMove(stream(variant), motion);

    switch (job.kind) {
      case 'kling-tryon': {
        const picture = await tryOnPicture(job.human, job.cloth);
        const image = { source: 'buffer' as const, data: picture.data, contentType: 'image/png', width: picture.width, height: picture.height };
        return {
          engine: ENGINE,
          method: 'garment-inset',
          simulated: true,
          note: 'Simulated try-on: the garment picture is shown beside the person, not fitted to the body (no try-on model runs here).',
          layout: 'single',
          image,
          images: [image],
          width: picture.width,
          height: picture.height,
          ...(job.model ? { data: { ignored_options: ['model'] } } : {}),
        };
      }
      case 'luma': {
        const frame = frameFor(job.aspectRatio ?? '1:1', shortSide);
        const shot = await singleShot(job.prompt, seed, frame, job.image, job.endImage, LUMA_SECONDS, move(0, 'low'), job.loop);
        const label = await caption(labelText(seed), frame);
        return videosResult(
          [{ frame, fps, shots: [shot] }],
          label,
          report,
          signal,
          describe(seed, job.image, job.endImage, job.enhancePrompt ? ['enhance_prompt'] : []),
        );
      }
      case 'kling-video': {
        const side = job.mode === 'pro' ? Math.round(shortSide * 1.5) : shortSide;
        const image = job.generationType === 'image2video' ? job.image : undefined;
        const frame = image
          ? frameFor(nearestRatio(...shapeOf(await imageShape(image.data, 'start')), UPSTREAM_RATIOS), side)
          : frameFor(job.aspectRatio ?? '16:9', side);
        const shot = await singleShot(job.prompt, seed, frame, image, image && job.endImage, job.durationSec, move(0, 'low'));
        const label = await caption(labelText(seed), frame);
        const ignored = [...(job.negativePrompt ? ['negative_prompt'] : []), 'cfg_scale', ...(job.model ? ['model'] : [])];
        return videosResult([{ frame, fps, shots: [shot] }], label, report, signal, describe(seed, image, image && job.endImage, ignored));
      }
      case 'runway': {
        let frame: FrameSize;
        const image = job.generationType === 'image2video' ? job.image : undefined;
        if (image) frame = frameFor(nearestRatio(...shapeOf(await imageShape(image.data, 'start')), UPSTREAM_RATIOS), shortSide);
        else if (job.generationType === 'video2video' && job.video) frame = frameOfVideo(job.video.data, shortSide);
        else frame = frameFor(job.aspectRatio ?? '16:9', shortSide);
        if (job.flip && frame.width > frame.height) frame = { width: frame.height, height: frame.width };
        const shot = await singleShot(job.prompt, seed, frame, image, image && job.endImage, job.durationSec, move(0, 'low'));
        const label = await caption(labelText(seed), frame);
        const about = describe(seed, image, image && job.endImage, job.model ? ['model'] : []);
        if (job.generationType === 'video2video') {
          about.note = `${about.note} The input video's frames are not used: the local engine has no video decoder; its frame shape is kept.`;
        }
        return videosResult([{ frame, fps, shots: [shot] }], label, report, signal, about);
      }
      case 'imagine-video': {
        const frame = frameFor(
          nearestRatio(...shapeOf(await imageShape(job.image.data, 'start')), ['1:1', '16:9', '9:16', '4:3', '3:4', '21:9', '9:21']),
          shortSide,
        );
        const scene = await imageScene(job.image.data, frame, 'start');
        const plans = Array.from({ length: MIDJOURNEY_CLIPS }, (_, i) => ({
          frame,
          fps,
          shots: [{ seconds: MIDJOURNEY_SECONDS, scene, ...move(i, job.motion) }],
        }));
        const label = await caption(labelText(seed), frame);
        return videosResult(plans, label, report, signal, describe(seed, job.image, undefined, []));
      }
      case 'luma-extend':
      case 'imagine-video-extend': {
        const parent = parentVideo(job.parent);
        const seconds = job.kind === 'luma-extend' ? LUMA_SECONDS : MIDJOURNEY_EXTEND_SECONDS;
        if (parent.mp4.durationSec + seconds > MAX_VIDEO_SECONDS) {
          throw new EngineError(
            'invalid_input',
            `The video is already ${Math.round(parent.mp4.durationSec)} seconds long; videos stop at ${MAX_VIDEO_SECONDS} seconds.`,
          );
        }
        const frame = { width: parent.mp4.width, height: parent.mp4.height };
        const clips = job.kind === 'luma-extend' ? 1 : MIDJOURNEY_CLIPS;
        const start = job.kind === 'imagine-video-extend' ? job.image : undefined;
        const end = job.kind === 'luma-extend' ? job.endImage : undefined;
        const motion: VideoMotion = job.kind === 'imagine-video-extend' ? job.motion : 'low';
        const startScene = start ? await imageScene(start.data, frame, 'start') : undefined;
        const endScene = end ? await imageScene(end.data, frame, 'end') : undefined;
        const plans: VideoPlan[] = [];
        for (let i = 0; i < clips; i += 1) {
          const scene = startScene ?? (await proceduralScene(job.prompt, seed, i, frame));
          const loop = job.kind === 'luma-extend' ? job.loop : undefined;
          plans.push({ frame, fps: parent.fps, parent, shots: [{ seconds, scene, fadeTo: endScene, loop, ...move(i, motion) }] });
        }
        const label = await caption(labelText(seed), frame);
        const about = describe(seed, start, end, job.kind === 'luma-extend' && job.enhancePrompt ? ['enhance_prompt'] : []);
        about.note = `Simulated: the parent video, unchanged, followed by a new ${seconds}-second segment (${about.scene}); the local engine cannot continue from the parent's last frame, so the join is a cut. Encoded as real H.264; ${NOT_A_MODEL}.`;
        return videosResult(plans, label, report, signal, about);
      }
      default:
        throw new EngineError('unsupported', 'This engine cannot run this task.', { detail: `${job.kind} is not a kind of the local video engine` });
    }
  }

  return defineEngine({ name: ENGINE, kinds: KINDS, simulatedKinds: KINDS, execute: run });
}

const shapeOf = (size: FrameSize): [number, number] => [size.width, size.height];

/** A runway video2video input's frame shape when it is an MP4 we can read, else 16:9. */
function frameOfVideo(data: Buffer, shortSide: number): FrameSize {
  try {
    const { width, height } = readMp4(data);
    if (width > 0 && height > 0) return frameFor(nearestRatio(width, height, UPSTREAM_RATIOS), shortSide);
  } catch {
    // WebM, or an MP4 we cannot read: the default shape
  }
  return frameFor('16:9', shortSide);
}

/** One clip: a camera move over the start image or the procedural picture, dissolving into the end image. */
async function singleShot(
  prompt: string,
  seed: number,
  frame: FrameSize,
  image: ImageInput | undefined,
  endImage: ImageInput | undefined,
  seconds: number,
  camera: { from: Shot['from']; to: Shot['to'] },
  loop?: boolean,
): Promise<Shot> {
  const [scene, fadeTo] = await Promise.all([
    image ? imageScene(image.data, frame, 'start') : proceduralScene(prompt, seed, 0, frame),
    endImage ? imageScene(endImage.data, frame, 'end') : undefined,
  ]);
  return { seconds, scene, fadeTo, loop, ...camera };
}

interface ResultText {
  method: string;
  note: string;
  /** What the camera moves over, in words. */
  scene: string;
  seed: number;
  /** Options the local engine takes but that change nothing here. */
  ignored: string[];
}

function describe(seed: number, image: ImageInput | undefined, endImage: ImageInput | undefined, ignored: string[]): ResultText {
  const scene = `${image ? 'a camera move over the start image' : 'a camera move over a procedural picture of the prompt'}${endImage ? ', dissolving into the end image' : ''}`;
  return {
    method: image ? 'image-camera-move' : 'procedural-camera-move',
    note: `Simulated: ${scene}, with the caption in every frame; encoded as real H.264; ${NOT_A_MODEL}.`,
    scene,
    seed,
    ignored,
  };
}
