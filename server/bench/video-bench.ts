/**
 * Local video engine timings, per second of video: a Luma clip end to end (procedural scene,
 * camera-move frames, H.264 on the encoder thread, fast-start MP4, poster), four Midjourney
 * clips from a picture, and an extension; next to two baselines measured in the same run on
 * the same frame size: rendering the same frames without encoding them, and encoding one still
 * frame repeated (the encoder alone). Also two clips at once against one after the other (why
 * the engine's queue concurrency is 1) and the worst event-loop delay while encoding.
 *
 *   npx tsx bench/video-bench.ts [--iterations 3] [--seconds 5] [--short-side 360] [--fps 24]
 *
 * Prints one JSON document on stdout.
 */
import { cpus } from 'node:os';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { HashStream } from '../src/engines/local/random.ts';
import { openEncoder } from '../src/engines/local-video/encoder.ts';
import { caption, cameraMove, frameFor, proceduralScene, shotFrames } from '../src/engines/local-video/frames.ts';
import { closeLocalVideoEncoder, createLocalVideoEngine, VIDEO_DEFAULTS } from '../src/engines/local-video/index.ts';
import { readMp4 } from '../src/engines/local-video/mp4.ts';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    'short-side': { type: 'string', default: String(VIDEO_DEFAULTS.shortSide) },
    fps: { type: 'string', default: String(VIDEO_DEFAULTS.fps) },
  },
});
const iterations = Math.max(1, Number(values.iterations));
const seconds = Number(values.seconds);
const shortSide = Number(values['short-side']);
const fps = Number(values.fps);
const PROMPT = 'a lighthouse on a cliff at sunset, ocean waves, birds';

const round = (v: number) => Math.round(v * 10) / 10;

function stats(samples: number[], videoSeconds: number) {
  const sorted = [...samples].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)];
  return {
    n: samples.length,
    medianMs: round(median),
    minMs: round(sorted[0]),
    maxMs: round(sorted[sorted.length - 1]),
    videoSeconds,
    msPerVideoSecond: round(median / videoSeconds),
  };
}

async function time(fn: () => Promise<unknown>): Promise<number[]> {
  await fn(); // warm-up: the encoder thread and its WebAssembly start once
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  return samples;
}

async function main() {
  const signal = new AbortController().signal;
  const engine = createLocalVideoEngine({ shortSide, fps });
  const frame = frameFor('16:9', shortSide);
  const scene = await proceduralScene(PROMPT, 7, 0, frame);
  const label = await caption('SIMULATED VIDEO  SEED 7', frame);
  const shot = { seconds, scene, ...cameraMove(new HashStream('bench', 7), 'low') };

  const renderOnly = await time(async () => {
    for await (const _ of shotFrames(shot, frame, fps, label)) {
      // frames only: what encoding adds is the difference
    }
  });
  const still = (await shotFrames(shot, frame, fps, label).next()).value as Uint8Array;
  const encodeStill = await time(async () => {
    const encoder = openEncoder({ ...frame, fps, qp: VIDEO_DEFAULTS.qp, speed: VIDEO_DEFAULTS.speed, gop: fps });
    for (let i = 0; i < Math.round(seconds * fps); i += 1) await encoder.addFrame(still.slice());
    await encoder.finish();
  });

  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  let bytes = 0;
  loopDelay.enable();
  const luma = await time(async () => {
    const result = await engine.run({ kind: 'luma', prompt: PROMPT, aspectRatio: '16:9' }, () => {}, signal);
    const file = result.videos?.[0].file;
    if (file?.source === 'buffer') bytes = file.data.length;
  });
  loopDelay.disable();

  const picture = await sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="576"><rect width="1024" height="576" fill="#247"/><circle cx="600" cy="260" r="160" fill="#fc6"/></svg>`,
    ),
  )
    .png()
    .toBuffer();
  const midjourney = await time(() =>
    engine.run({ kind: 'imagine-video', prompt: PROMPT, image: { url: 'bench', data: picture, contentType: 'image/png' }, motion: 'low' }, () => {}, signal),
  );

  const parent = await engine.run({ kind: 'luma', prompt: PROMPT, aspectRatio: '16:9' }, () => {}, signal);
  const parentFile = parent.videos?.[0].file;
  if (parentFile?.source !== 'buffer') throw new Error('expected a local video');
  const extend = await time(() =>
    engine.run(
      {
        kind: 'luma-extend',
        prompt: 'night falls',
        parent: { taskId: 'bench', taskType: 'luma', index: 1, video: { url: 'bench', data: parentFile.data, contentType: 'video/mp4' } },
      },
      () => {},
      signal,
    ),
  );

  // two clips at once against one after the other, each measured once after the warm-ups above
  const pair = () => engine.run({ kind: 'luma', prompt: PROMPT, aspectRatio: '16:9' }, () => {}, signal);
  let start = performance.now();
  await pair();
  await pair();
  const serialMs = performance.now() - start;
  start = performance.now();
  await Promise.all([pair(), pair()]);
  const parallelMs = performance.now() - start;
  await closeLocalVideoEncoder();

  const lumaStats = stats(luma, seconds);
  const ratio = (ms: number, base: number) => Math.round((ms / base) * 100) / 100;
  const render = stats(renderOnly, seconds);
  const encode = stats(encodeStill, seconds);
  const output = {
    bench: 'local-video',
    at: new Date().toISOString(),
    node: process.version,
    sharp: sharp.versions.sharp,
    cpus: cpus().length,
    iterations,
    frame: `${frame.width}x${frame.height}`,
    fps,
    encoder: `h264-mp4-encoder (minih264, WebAssembly) qp ${VIDEO_DEFAULTS.qp} speed ${VIDEO_DEFAULTS.speed}, keyframe each second`,
    results: {
      baselineRenderFramesOnly: { ...render, what: 'the same camera-move frames rendered (libvips crop + scale, dissolve, caption), not encoded' },
      baselineEncodeStillOnly: { ...encode, what: 'one frame encoded again and again: the encoder alone' },
      luma: {
        ...lumaStats,
        ratioToRenderOnly: ratio(lumaStats.medianMs, render.medianMs),
        bytes,
        what: 'a text-to-video clip end to end: scene, frames, H.264, fast-start MP4, poster',
      },
      imagineVideo: { ...stats(midjourney, 4 * 5), what: 'four 5-second clips from a picture' },
      lumaExtend: {
        ...stats(extend, 5),
        outputSeconds: readMp4(parentFile.data).durationSec + 5,
        what: 'the parent’s samples kept, 5 new seconds encoded and appended',
      },
      concurrency: {
        twoOneAfterTheOtherMs: round(serialMs),
        twoAtOnceMs: round(parallelMs),
        what: 'two Luma clips; at once is not faster on this machine, so the engine runs one job at a time',
      },
      eventLoopMaxDelayMs: Math.round(loopDelay.max / 1e5) / 10,
      eventLoopP99DelayMs: Math.round(loopDelay.percentile(99) / 1e5) / 10,
    },
  };
  process.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
