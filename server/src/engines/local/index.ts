/**
 * @module The local (embedded) engine, per local-engine.md: imagine, reroll, variations,
 * flux and ideogram are procedural stand-ins rendered deterministically from prompt + seed
 * (labelled `simulated` in the result and with a caption in the pixels); upscales are real
 * lanczos enlargements; seed reads the parent's seed.
 */
import { randomInt } from 'node:crypto';
import { defineEngine, throwIfAborted } from '../define-engine.ts';
import {
  type AspectRatio,
  type CellIndex,
  type Engine,
  type EngineImage,
  type EngineJob,
  type EngineJobKind,
  type EngineResult,
  EngineError,
  type ParentRef,
  type ProgressListener,
} from '../engine.ts';
import { captionBarHeight, type RenderStyle, tileSvg, variationOverlaySvg } from './procedural.ts';
import { deriveSeed, HashStream } from './random.ts';
import {
  composeGrid,
  configureSharp,
  decode,
  encode,
  extractCell,
  type OutputFormat,
  type RawImage,
  rasteriseSvg,
  UPSCALE_FACTORS,
  upscale,
  varyCell,
} from './raster.ts';

export interface LocalEngineOptions {
  /** Side of one grid cell in pixels (the grid is twice that). Default 1024. */
  cellSize?: number;
  /** Encoding of every output image. Default png. */
  format?: OutputFormat;
  /** Largest upscale output, in pixels. Default 4096×4096. */
  maxOutputPixels?: number;
  /** Largest parent image we agree to decode, in pixels. Default 8192×8192. */
  maxInputPixels?: number;
  /** libvips threads per operation (sharp.concurrency); process-wide. Unset keeps sharp's default. */
  threads?: number;
}

const KINDS: readonly EngineJobKind[] = ['imagine', 'reroll', 'variation', 'upscale', 'seed', 'flux-imagine', 'ideogram-imagine'];
/** Procedural stand-ins; upscale (lanczos) and seed (the parent's) are real. */
const SIMULATED_KINDS: readonly EngineJobKind[] = ['imagine', 'reroll', 'variation', 'flux-imagine', 'ideogram-imagine'];

const SIMULATED_NOTE = 'Simulated: a procedural picture rendered locally from the prompt and seed, not a generative model.';

const ASPECT_RATIOS: Record<AspectRatio, [number, number]> = {
  '1:1': [1, 1],
  '16:9': [16, 9],
  '9:16': [9, 16],
  '4:3': [4, 3],
  '3:4': [3, 4],
  '3:2': [3, 2],
  '2:3': [2, 3],
};

/** Fits an aspect ratio into a square of `size`, even sides so a grid splits cleanly. */
function frame(size: number, ratio: AspectRatio = '1:1'): { width: number; height: number } {
  const [w, h] = ASPECT_RATIOS[ratio];
  const even = (value: number) => Math.max(2, Math.round(value / 2) * 2);
  return w >= h ? { width: even(size), height: even((size * h) / w) } : { width: even((size * w) / h), height: even(size) };
}

function newSeed(): number {
  return randomInt(0, 2 ** 32 - 1);
}

function requireParentImage(parent: ParentRef): Uint8Array {
  if (!parent.image || parent.image.length === 0) {
    throw new EngineError('invalid_input', 'The parent task has no image to work from.');
  }
  return parent.image;
}

export function createLocalEngine(options: LocalEngineOptions = {}): Engine {
  const cellSize = options.cellSize ?? 1024;
  const format = options.format ?? 'png';
  const maxOutputPixels = options.maxOutputPixels ?? 4096 * 4096;
  const maxInputPixels = options.maxInputPixels ?? 8192 * 8192;
  configureSharp({ threads: options.threads });

  const toImage = async (raw: RawImage): Promise<EngineImage> => ({ source: 'buffer', ...(await encode(raw, format)) });

  /** Encodes four cells and their grid into a grid result. */
  async function gridResult(cells: RawImage[], seed: number, report: ProgressListener, signal: AbortSignal, method: string): Promise<EngineResult> {
    const grid = await composeGrid(cells);
    report({ percentage: 80 });
    throwIfAborted(signal);
    const [image, ...images] = await Promise.all([grid, ...cells].map(toImage));
    return {
      engine: 'local',
      method,
      simulated: true,
      note: SIMULATED_NOTE,
      layout: 'grid',
      image,
      images,
      seed,
      width: grid.width,
      height: grid.height,
    };
  }

  async function renderTiles(
    prompt: string,
    seed: number,
    style: RenderStyle,
    size: { width: number; height: number },
    count: number,
    report: ProgressListener,
    signal: AbortSignal,
  ): Promise<RawImage[]> {
    report({ percentage: 5, status: 'running' });
    let done = 0;
    return Promise.all(
      Array.from({ length: count }, async (_, variant) => {
        const caption = `SIMULATED  SEED ${seed}${count > 1 ? `  ${variant + 1}/${count}` : ''}`;
        throwIfAborted(signal);
        const raw = await rasteriseSvg(tileSvg({ prompt, seed, variant, ...size, style, caption }));
        done += 1;
        report({ percentage: 5 + Math.round((65 * done) / count) });
        return raw;
      }),
    );
  }

  async function imagine(prompt: string, seed: number, style: RenderStyle, ratio: AspectRatio | undefined, report: ProgressListener, signal: AbortSignal) {
    if (!prompt.trim()) throw new EngineError('invalid_input', 'The prompt is empty.');
    const cells = await renderTiles(prompt, seed, style, frame(cellSize, ratio), 4, report, signal);
    throwIfAborted(signal);
    return gridResult(cells, seed, report, signal, 'procedural-svg');
  }

  async function parentCell(parent: ParentRef, index: CellIndex): Promise<RawImage> {
    const decoded = await decode(requireParentImage(parent), maxInputPixels);
    return (parent.layout ?? 'grid') === 'grid' ? extractCell(decoded, index) : decoded;
  }

  async function variation(parent: ParentRef, index: CellIndex, report: ProgressListener, signal: AbortSignal) {
    report({ percentage: 5, status: 'running' });
    const cell = await parentCell(parent, index);
    const seed = deriveSeed('variation', cell.data, index);
    const prompt = parent.prompt ?? '';
    report({ percentage: 15 });
    let done = 0;
    const cells = await Promise.all(
      [0, 1, 2, 3].map(async (variant) => {
        throwIfAborted(signal);
        const stream = new HashStream('variation-tweak', seed, variant);
        const overlay = variationOverlaySvg({
          prompt,
          seed,
          variant,
          width: cell.width,
          height: cell.height,
          caption: `SIMULATED  VARIATION ${index}  SEED ${seed}  ${variant + 1}/4`,
        });
        const out = await varyCell(
          cell,
          {
            zoom: stream.range(0.02, 0.08),
            offsetX: stream.next(),
            offsetY: stream.next(),
            hue: stream.int(-35, 35),
            saturation: stream.range(0.85, 1.2),
            brightness: stream.range(0.92, 1.08),
          },
          captionBarHeight(cell.height),
          overlay,
        );
        done += 1;
        report({ percentage: 15 + Math.round((55 * done) / 4) });
        return out;
      }),
    );
    throwIfAborted(signal);
    return gridResult(cells, seed, report, signal, 'procedural-variation');
  }

  async function upscaleJob(job: Extract<EngineJob, { kind: 'upscale' }>, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
    report({ percentage: 5, status: 'running' });
    const cell = await parentCell(job.parent, job.index);
    const factor = UPSCALE_FACTORS[job.type];
    if (cell.width * factor * cell.height * factor > maxOutputPixels) {
      throw new EngineError('too_large', `This image is too large to upscale ${job.type}.`, {
        detail: `${cell.width}x${cell.height} x${factor} exceeds ${maxOutputPixels} pixels`,
      });
    }
    report({ percentage: 30 });
    throwIfAborted(signal);
    const enlarged = await upscale(cell, job.type);
    report({ percentage: 70 });
    throwIfAborted(signal);
    const image = await toImage(enlarged);
    return {
      engine: 'local',
      method: factor === 1 ? 'crop' : 'lanczos3',
      simulated: false,
      layout: 'single',
      image,
      images: [image],
      seed: job.parent.seed,
      width: enlarged.width,
      height: enlarged.height,
    };
  }

  async function flux(job: Extract<EngineJob, { kind: 'flux-imagine' }>, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
    if (!job.prompt.trim()) throw new EngineError('invalid_input', 'The prompt is empty.');
    const seed = job.seed ?? newSeed();
    const [raw] = await renderTiles(job.prompt, seed, 'flux', frame(cellSize, job.aspectRatio), 1, report, signal);
    throwIfAborted(signal);
    const image = await toImage(raw);
    return {
      engine: 'local',
      method: 'procedural-svg',
      simulated: true,
      note: SIMULATED_NOTE,
      layout: 'single',
      image,
      images: [image],
      seed,
      width: raw.width,
      height: raw.height,
    };
  }

  return defineEngine({
    name: 'local',
    kinds: KINDS,
    simulatedKinds: SIMULATED_KINDS,
    async execute(job, report, signal) {
      switch (job.kind) {
        case 'imagine':
          return imagine(job.prompt, job.seed ?? newSeed(), 'midjourney', undefined, report, signal);
        case 'ideogram-imagine':
          return imagine(job.prompt, job.seed ?? newSeed(), 'ideogram', job.aspectRatio, report, signal);
        case 'reroll':
          if (!job.parent.prompt) throw new EngineError('invalid_input', 'The parent task has no prompt to reroll.');
          return imagine(job.parent.prompt, job.seed ?? newSeed(), 'midjourney', undefined, report, signal);
        case 'variation':
          return variation(job.parent, job.index, report, signal);
        case 'upscale':
          return upscaleJob(job, report, signal);
        case 'flux-imagine':
          return flux(job, report, signal);
        case 'seed':
          if (job.parent.seed === undefined) throw new EngineError('invalid_input', 'The seed of this task is not known.');
          return { engine: 'local', method: 'seed', simulated: false, layout: 'none', images: [], seed: job.parent.seed };
        case 'faceswap':
        case 'ai-photo-upload':
        case 'ai-photo-train':
        case 'ai-photo-generate':
          throw new EngineError('unsupported', 'This engine cannot run this task.', { detail: `${job.kind} runs on a face engine` });
        default: {
          const unknown: never = job;
          throw new EngineError('unsupported', 'This engine cannot run this task.', { detail: JSON.stringify(unknown) });
        }
      }
    },
  });
}
