/**
 * @module The local (embedded) engine, per local-engine.md. What is real and what is a
 * stand-in, kind by kind (every stand-in says SIMULATED in its pixels and `simulated: true`):
 * - imagine, reroll, variations, flux, ideogram imagine: procedural stand-ins rendered
 *   deterministically from prompt + seed.
 * - upscale (all types) and ideogram-upscale: real lanczos enlargements; seed reads the
 *   parent's seed; shorten is a real rule-based text reduction (shorten.ts).
 * - pan and outpaint: real canvas geometry, the parent copied exactly onto the larger canvas;
 *   the new area is procedural and labelled (canvas.ts).
 * - inpaint: the mask is real and respected exactly; the region is procedural and labelled
 *   (inpaint.ts). vary strong/subtle: seeded recolours and zooms of the parent with new motifs.
 * - blend: a real pixel composite of the inputs in the chosen shape, not a generative fusion.
 * - describe, ideogram-describe: real measurements (colours, light, contrast, sharpness,
 *   orientation, faces) worded by templates (describe.ts); ideogram-remix: the input picture
 *   really mixed with a procedural render by image_weight.
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
import type { BlendDimension, PictureSize, VaryType } from '../jobs/picture-actions.ts';
import { composite } from './blend.ts';
import { type CanvasPlan, extendCanvas, outpaintPlan, panPlan } from './canvas.ts';
import { describeParagraph, describePrompts, type FaceCounter, measureImage } from './describe.ts';
import { repaintRegion } from './inpaint.ts';
import { captionBarHeight, captionSvg, type RenderStyle, tileSvg, variationOverlaySvg } from './procedural.ts';
import { deriveSeed, HashStream } from './random.ts';
import {
  composeGrid,
  configureSharp,
  decode,
  decodeCover,
  decodeMask,
  encode,
  enlarge,
  extractCell,
  type OutputFormat,
  overlay,
  type RawImage,
  rasteriseSvg,
  resizeExact,
  UPSCALE_FACTORS,
  upscale,
  varyCell,
} from './raster.ts';
import { shortenPrompt } from './shorten.ts';

export interface LocalEngineOptions {
  /** Side of one grid cell in pixels (the grid is twice that). Default 1024. */
  cellSize?: number;
  /** Encoding of every output image. Default png. */
  format?: OutputFormat;
  /** Largest output picture (an upscale, one candidate of a pan or zoom), in pixels. Default 4096×4096. */
  maxOutputPixels?: number;
  /** Largest parent image we agree to decode, in pixels. Default 8192×8192. */
  maxInputPixels?: number;
  /** libvips threads per operation (sharp.concurrency); process-wide. Unset keeps sharp's default. */
  threads?: number;
  /** Counts faces for describe (runtime.ts passes the local face engine's); without it describe leaves faces out. */
  faces?: FaceCounter;
}

const KINDS: readonly EngineJobKind[] = [
  'imagine',
  'reroll',
  'variation',
  'upscale',
  'seed',
  'flux-imagine',
  'ideogram-imagine',
  'blend',
  'describe',
  'shorten',
  'pan',
  'outpaint',
  'inpaint',
  'vary',
  'ideogram-remix',
  'ideogram-upscale',
  'ideogram-describe',
];
/**
 * Procedural stand-ins (in part: pan, outpaint and inpaint keep the parent's pixels exactly;
 * describe's measurements are real, its wording is not). Real: upscale and ideogram-upscale
 * (lanczos), seed (the parent's), shorten (a rule-based text reduction that does what it says).
 */
const SIMULATED_KINDS: readonly EngineJobKind[] = [
  'imagine',
  'reroll',
  'variation',
  'flux-imagine',
  'ideogram-imagine',
  'blend',
  'describe',
  'pan',
  'outpaint',
  'inpaint',
  'vary',
  'ideogram-remix',
  'ideogram-describe',
];

const SIMULATED_NOTE = 'Simulated: a procedural picture rendered locally from the prompt and seed, not a generative model.';
const CANVAS_NOTE =
  "Simulated in part: the parent picture is kept pixel for pixel on the larger canvas; the new area is a procedural picture from the prompt, not a generative model's.";
const INPAINT_NOTE =
  'Simulated in part: every pixel outside the mask is the parent\u2019s; inside it a procedural picture from the prompt, not a generative model\u2019s.';
const VARY_NOTE = 'Simulated: seeded recolours and zooms of the parent picture with procedural motifs, not a generative model.';
const BLEND_NOTE = 'Simulated: a pixel composite of the input pictures (each mixed in by position), not a generative blend of their content.';
const DESCRIBE_NOTE =
  'Simulated: worded by templates from real measurements of the picture (colours, brightness, contrast, saturation, sharpness, orientation, faces when counted); no captioning model reads what it shows.';
const SHORTEN_NOTE =
  "Rule-based: filler and stop words and repeated phrases removed, words ranked by repetition and position; not Midjourney's token analysis.";
const REMIX_NOTE = 'Simulated: the input picture mixed by image_weight with a procedural picture from the prompt, not a generative remix.';

const ASPECT_RATIOS: Record<AspectRatio, [number, number]> = {
  '1:1': [1, 1],
  '16:9': [16, 9],
  '9:16': [9, 16],
  '4:3': [4, 3],
  '3:4': [3, 4],
  '3:2': [3, 2],
  '2:3': [2, 3],
};

const BLEND_RATIOS: Record<BlendDimension, AspectRatio> = { square: '1:1', portrait: '2:3', landscape: '3:2' };

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

/** `b` mixed into `a` with `weight` (0: all a, 1: all b); both the same size. */
function mix(a: RawImage, b: RawImage, weight: number): RawImage {
  const out = Buffer.alloc(a.data.length);
  for (let i = 0; i < out.length; i += 1) out[i] = Math.round(a.data[i] * (1 - weight) + b.data[i] * weight);
  return { data: out, width: a.width, height: a.height };
}

/** The prompt without the words of a negative prompt (what the procedural render should leave out). */
function withoutWords(prompt: string, negative: string | undefined): string {
  if (!negative) return prompt;
  const drop = new Set(negative.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  return prompt
    .split(/\s+/)
    .filter((word) => word && !drop.has(word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')))
    .join(' ');
}

interface Tweak {
  zoom: [number, number];
  hue: number;
  saturation: [number, number];
  brightness: [number, number];
}

/** The V1–V4 buttons' range. */
const VARIATION_TWEAK: Tweak = { zoom: [0.02, 0.08], hue: 35, saturation: [0.85, 1.2], brightness: [0.92, 1.08] };

const VARY_TWEAKS: Record<VaryType, Tweak> = {
  subtle: { zoom: [0.005, 0.025], hue: 8, saturation: [0.95, 1.06], brightness: [0.97, 1.03] },
  strong: { zoom: [0.05, 0.14], hue: 60, saturation: [0.75, 1.35], brightness: [0.88, 1.12] },
};

export function createLocalEngine(options: LocalEngineOptions = {}): Engine {
  const cellSize = options.cellSize ?? 1024;
  const format = options.format ?? 'png';
  const maxOutputPixels = options.maxOutputPixels ?? 4096 * 4096;
  const maxInputPixels = options.maxInputPixels ?? 8192 * 8192;
  configureSharp({ threads: options.threads });

  const toImage = async (raw: RawImage): Promise<EngineImage> => ({ source: 'buffer', ...(await encode(raw, format)) });

  /**
   * Encodes four cells and their grid into a grid result. Cells are kept at full size; the
   * grid (the overview of all four) is made from smaller copies when it would pass the
   * output budget.
   */
  async function gridResult(
    cells: RawImage[],
    seed: number,
    report: ProgressListener,
    signal: AbortSignal,
    method: string,
    note = SIMULATED_NOTE,
  ): Promise<EngineResult> {
    const { width, height } = cells[0];
    const shrink = Math.min(1, Math.sqrt(maxOutputPixels / (4 * width * height)));
    const gridCells = shrink < 1 ? await Promise.all(cells.map((cell) => resizeExact(cell, Math.floor(width * shrink), Math.floor(height * shrink)))) : cells;
    const grid = await composeGrid(gridCells);
    report({ percentage: 80 });
    throwIfAborted(signal);
    const [image, ...images] = await Promise.all([grid, ...cells].map(toImage));
    return { engine: 'local', method, simulated: true, note, layout: 'grid', image, images, seed, width: grid.width, height: grid.height };
  }

  /** A one-picture result. */
  async function singleResult(raw: RawImage, fields: Pick<EngineResult, 'method' | 'simulated' | 'note' | 'seed'>): Promise<EngineResult> {
    const image = await toImage(raw);
    return { engine: 'local', layout: 'single', image, images: [image], width: raw.width, height: raw.height, ...fields };
  }

  /** Four candidates made by `make(variant)`, with progress from 15 to 70. */
  async function fourCandidates(make: (variant: number) => Promise<RawImage>, report: ProgressListener, signal: AbortSignal): Promise<RawImage[]> {
    let done = 0;
    return Promise.all(
      [0, 1, 2, 3].map(async (variant) => {
        throwIfAborted(signal);
        const out = await make(variant);
        done += 1;
        report({ percentage: 15 + Math.round((55 * done) / 4) });
        return out;
      }),
    );
  }

  async function renderTiles(
    prompt: string,
    seed: number,
    style: RenderStyle,
    size: { width: number; height: number },
    count: number,
    report: ProgressListener,
    signal: AbortSignal,
    withCaption = true,
  ): Promise<RawImage[]> {
    report({ percentage: 5, status: 'running' });
    let done = 0;
    return Promise.all(
      Array.from({ length: count }, async (_, variant) => {
        const caption = withCaption ? `SIMULATED  SEED ${seed}${count > 1 ? `  ${variant + 1}/${count}` : ''}` : null;
        throwIfAborted(signal);
        const raw = await rasteriseSvg(tileSvg({ prompt, seed, variant, ...size, style, caption }));
        done += 1;
        report({ percentage: 5 + Math.round((65 * done) / count) });
        return raw;
      }),
    );
  }

  async function imagine(
    prompt: string,
    seed: number,
    style: RenderStyle,
    size: { width: number; height: number },
    report: ProgressListener,
    signal: AbortSignal,
  ) {
    if (!prompt.trim()) throw new EngineError('invalid_input', 'The prompt is empty.');
    const cells = await renderTiles(prompt, seed, style, size, 4, report, signal);
    throwIfAborted(signal);
    return gridResult(cells, seed, report, signal, 'procedural-svg');
  }

  async function parentCell(parent: ParentRef, index: CellIndex): Promise<RawImage> {
    const decoded = await decode(requireParentImage(parent), maxInputPixels);
    return (parent.layout ?? 'grid') === 'grid' ? extractCell(decoded, index) : decoded;
  }

  /** The picture an action applies to: the named cell of a grid parent, or the whole single parent. */
  async function actionPicture(parent: ParentRef, index: CellIndex | undefined): Promise<RawImage> {
    if ((parent.layout ?? 'grid') === 'grid' && index === undefined) {
      throw new EngineError('invalid_input', 'Name one image of the grid (index 1–4) to work on.');
    }
    return parentCell(parent, index ?? 1);
  }

  /** Refuses a canvas over the output budget before anything is rendered. */
  function checkCanvas(plan: CanvasPlan, what: string): void {
    if (plan.width * plan.height > maxOutputPixels) {
      throw new EngineError('too_large', `This image is too large to ${what}.`, { detail: `${plan.width}x${plan.height} exceeds ${maxOutputPixels} pixels` });
    }
  }

  async function variation(parent: ParentRef, index: CellIndex, report: ProgressListener, signal: AbortSignal) {
    report({ percentage: 5, status: 'running' });
    const cell = await parentCell(parent, index);
    const seed = deriveSeed('variation', cell.data, index);
    return variedGrid(cell, seed, parent.prompt ?? '', VARIATION_TWEAK, `VARIATION ${index}`, 'procedural-variation', SIMULATED_NOTE, report, signal);
  }

  /** Four seeded recolours and zooms of `cell` with procedural motifs on top. */
  async function variedGrid(
    cell: RawImage,
    seed: number,
    prompt: string,
    tweak: Tweak,
    label: string,
    method: string,
    note: string,
    report: ProgressListener,
    signal: AbortSignal,
  ) {
    report({ percentage: 15 });
    const cells = await fourCandidates(
      (variant) => {
        const stream = new HashStream('variation-tweak', seed, variant);
        const overlaySvg = variationOverlaySvg({
          prompt,
          seed,
          variant,
          width: cell.width,
          height: cell.height,
          caption: `SIMULATED  ${label}  SEED ${seed}  ${variant + 1}/4`,
        });
        return varyCell(
          cell,
          {
            zoom: stream.range(...tweak.zoom),
            offsetX: stream.next(),
            offsetY: stream.next(),
            hue: stream.int(-tweak.hue, tweak.hue),
            saturation: stream.range(...tweak.saturation),
            brightness: stream.range(...tweak.brightness),
          },
          captionBarHeight(cell.height),
          overlaySvg,
        );
      },
      report,
      signal,
    );
    throwIfAborted(signal);
    return gridResult(cells, seed, report, signal, method, note);
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
    return singleResult(enlarged, { method: factor === 1 ? 'crop' : 'lanczos3', simulated: false, seed: job.parent.seed });
  }

  /** The size a picture job asks for: an exact size, else its aspect ratio fitted into a cell. */
  const sizeOf = (size: PictureSize | undefined, ratio: AspectRatio | undefined) => size ?? frame(cellSize, ratio);

  async function flux(job: Extract<EngineJob, { kind: 'flux-imagine' }>, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
    if (!job.prompt.trim()) throw new EngineError('invalid_input', 'The prompt is empty.');
    const seed = job.seed ?? newSeed();
    const size = sizeOf(job.size, job.aspectRatio);
    const caption = `SIMULATED  SEED ${seed}`;
    let [raw] = await renderTiles(job.prompt, seed, 'flux', size, 1, report, signal, !job.imagePrompt);
    if (job.imagePrompt) {
      // the picture to start from, really mixed in (0.1 is the models' default strength)
      const start = await decodeCover(job.imagePrompt.data, raw.width, raw.height, maxInputPixels);
      raw = await overlay(mix(raw, start, job.imagePromptStrength ?? 0.1), captionSvg(raw.width, raw.height, caption));
    }
    throwIfAborted(signal);
    return singleResult(raw, { method: 'procedural-svg', simulated: true, note: SIMULATED_NOTE, seed });
  }

  async function ideogramImagine(job: Extract<EngineJob, { kind: 'ideogram-imagine' }>, report: ProgressListener, signal: AbortSignal) {
    const prompt = withoutWords(job.prompt, job.negativePrompt);
    // the style type picks another palette and layout of the same prompt
    const styled = job.styleType ? `${prompt} ${job.styleType.toLowerCase()}` : prompt;
    return imagine(styled.trim() ? styled : job.prompt, job.seed ?? newSeed(), 'ideogram', sizeOf(job.resolution, job.aspectRatio), report, signal);
  }

  async function pan(job: Extract<EngineJob, { kind: 'pan' }>, report: ProgressListener, signal: AbortSignal) {
    report({ percentage: 5, status: 'running' });
    const picture = await actionPicture(job.parent, job.index);
    const plan = panPlan(picture.width, picture.height, job.direction);
    checkCanvas(plan, `pan ${job.direction}`);
    const seed = deriveSeed('pan', job.direction, picture.data);
    const prompt = job.prompt ?? job.parent.prompt ?? '';
    const cells = await fourCandidates(
      (variant) => extendCanvas(picture, plan, { prompt, seed, variant }, `SIMULATED PAN ${job.direction.toUpperCase()}  SEED ${seed}  ${variant + 1}/4`),
      report,
      signal,
    );
    return gridResult(cells, seed, report, signal, 'canvas-extend', CANVAS_NOTE);
  }

  async function outpaint(job: Extract<EngineJob, { kind: 'outpaint' }>, report: ProgressListener, signal: AbortSignal) {
    report({ percentage: 5, status: 'running' });
    const picture = await actionPicture(job.parent, job.index);
    const plan = outpaintPlan(picture.width, picture.height, job.zoom, job.aspectRatio);
    checkCanvas(plan, `zoom out ${job.zoom}x`);
    const seed = deriveSeed('outpaint', job.zoom, job.aspectRatio ?? '', picture.data);
    const prompt = job.prompt ?? job.parent.prompt ?? '';
    const cells = await fourCandidates(
      (variant) => extendCanvas(picture, plan, { prompt, seed, variant }, `SIMULATED ZOOM OUT ${job.zoom}X  SEED ${seed}  ${variant + 1}/4`),
      report,
      signal,
    );
    return gridResult(cells, seed, report, signal, 'canvas-extend', CANVAS_NOTE);
  }

  async function inpaint(job: Extract<EngineJob, { kind: 'inpaint' }>, report: ProgressListener, signal: AbortSignal) {
    report({ percentage: 5, status: 'running' });
    const picture = await actionPicture(job.parent, job.index);
    const mask = await decodeMask(job.mask.data, picture.width, picture.height, maxInputPixels);
    const seed = deriveSeed('inpaint', job.prompt, mask, picture.data);
    const cells = await fourCandidates(
      (variant) => repaintRegion(picture, mask, { prompt: job.prompt, seed, variant }, `SIMULATED VARY REGION  SEED ${seed}  ${variant + 1}/4`),
      report,
      signal,
    );
    return gridResult(cells, seed, report, signal, 'mask-repaint', INPAINT_NOTE);
  }

  async function vary(job: Extract<EngineJob, { kind: 'vary' }>, report: ProgressListener, signal: AbortSignal) {
    report({ percentage: 5, status: 'running' });
    const picture = await actionPicture(job.parent, job.index);
    const seed = deriveSeed('vary', job.type, picture.data);
    const label = `VARY ${job.type.toUpperCase()}`;
    return variedGrid(picture, seed, job.parent.prompt ?? '', VARY_TWEAKS[job.type], label, 'procedural-variation', VARY_NOTE, report, signal);
  }

  async function blend(job: Extract<EngineJob, { kind: 'blend' }>, report: ProgressListener, signal: AbortSignal) {
    report({ percentage: 5, status: 'running' });
    if (job.images.length < 2 || job.images.length > 5) throw new EngineError('invalid_input', 'Blend takes 2 to 5 images.');
    const size = frame(cellSize, BLEND_RATIOS[job.dimension]);
    const inputs = await Promise.all(job.images.map((image) => decodeCover(image.data, size.width, size.height, maxInputPixels)));
    const seed = deriveSeed('blend', job.dimension, ...inputs.map((input) => input.data));
    report({ percentage: 15 });
    const cells = await fourCandidates(
      (variant) => overlay(composite(inputs, variant), captionSvg(size.width, size.height, `SIMULATED BLEND  LOCAL COMPOSITE  ${variant + 1}/4`)),
      report,
      signal,
    );
    return gridResult(cells, seed, report, signal, 'pixel-composite', BLEND_NOTE);
  }

  async function measured(image: Buffer, signal: AbortSignal) {
    return measureImage(image, maxInputPixels, options.faces ? { count: options.faces, signal } : undefined);
  }

  async function describe(
    job: Extract<EngineJob, { kind: 'describe' | 'ideogram-describe' }>,
    report: ProgressListener,
    signal: AbortSignal,
  ): Promise<EngineResult> {
    report({ percentage: 10, status: 'running' });
    const statistics = await measured(job.image.data, signal);
    report({ percentage: 80 });
    const texts = job.kind === 'describe' ? describePrompts(statistics) : [describeParagraph(statistics)];
    return { engine: 'local', method: 'image-statistics', simulated: true, note: DESCRIBE_NOTE, layout: 'none', images: [], texts, data: { statistics } };
  }

  async function remix(job: Extract<EngineJob, { kind: 'ideogram-remix' }>, report: ProgressListener, signal: AbortSignal) {
    const seed = job.seed ?? newSeed();
    const prompt = withoutWords(job.prompt, job.negativePrompt) || job.prompt;
    const [render] = await renderTiles(prompt, seed, 'ideogram', sizeOf(job.resolution, job.aspectRatio), 1, report, signal, false);
    const input = await decodeCover(job.image.data, render.width, render.height, maxInputPixels);
    const raw = await overlay(mix(render, input, (job.imageWeight ?? 50) / 100), captionSvg(render.width, render.height, `SIMULATED REMIX  SEED ${seed}`));
    throwIfAborted(signal);
    return singleResult(raw, { method: 'procedural-mix', simulated: true, note: REMIX_NOTE, seed });
  }

  async function ideogramUpscale(job: Extract<EngineJob, { kind: 'ideogram-upscale' }>, report: ProgressListener, signal: AbortSignal) {
    report({ percentage: 5, status: 'running' });
    const input = await decode(job.image.data, maxInputPixels);
    if (input.width * 2 * input.height * 2 > maxOutputPixels) {
      throw new EngineError('too_large', 'This image is too large to upscale.', {
        detail: `${input.width}x${input.height} x2 exceeds ${maxOutputPixels} pixels`,
      });
    }
    report({ percentage: 30 });
    // detail: how hard the enlargement is sharpened; resemblance under 50 lifts the colour a little
    const detail = job.detail ?? 50;
    const resemblance = job.resemblance ?? 50;
    const enlarged = await enlarge(input, 2, { sharpenSigma: 0.3 + (1.2 * detail) / 100, saturation: 1 + Math.max(0, 50 - resemblance) / 250 });
    report({ percentage: 70 });
    throwIfAborted(signal);
    return singleResult(enlarged, {
      method: 'lanczos3',
      simulated: false,
      note: 'A 2x lanczos3 enlargement; detail sets the sharpening and resemblance the colour finish. No detail is invented, and the prompt is not used.',
      seed: job.seed,
    });
  }

  return defineEngine({
    name: 'local',
    kinds: KINDS,
    simulatedKinds: SIMULATED_KINDS,
    async execute(job, report, signal) {
      switch (job.kind) {
        case 'imagine':
          return imagine(job.prompt, job.seed ?? newSeed(), 'midjourney', frame(cellSize, job.aspectRatio), report, signal);
        case 'ideogram-imagine':
          return ideogramImagine(job, report, signal);
        case 'reroll': {
          const prompt = job.prompt ?? job.parent.prompt;
          if (!prompt) throw new EngineError('invalid_input', 'The parent task has no prompt to reroll.');
          return imagine(prompt, job.seed ?? newSeed(), 'midjourney', frame(cellSize), report, signal);
        }
        case 'variation':
          return variation(job.parent, job.index, report, signal);
        case 'upscale':
          return upscaleJob(job, report, signal);
        case 'flux-imagine':
          return flux(job, report, signal);
        case 'seed':
          if (job.parent.seed === undefined) throw new EngineError('invalid_input', 'The seed of this task is not known.');
          return { engine: 'local', method: 'seed', simulated: false, layout: 'none', images: [], seed: job.parent.seed };
        case 'pan':
          return pan(job, report, signal);
        case 'outpaint':
          return outpaint(job, report, signal);
        case 'inpaint':
          return inpaint(job, report, signal);
        case 'vary':
          return vary(job, report, signal);
        case 'blend':
          return blend(job, report, signal);
        case 'describe':
        case 'ideogram-describe':
          return describe(job, report, signal);
        case 'shorten': {
          const { prompts, fullContent } = shortenPrompt(job.prompt);
          return {
            engine: 'local',
            method: 'rule-based',
            simulated: false,
            note: SHORTEN_NOTE,
            layout: 'none',
            images: [],
            texts: prompts,
            data: { full_content: fullContent },
          };
        }
        case 'ideogram-remix':
          return remix(job, report, signal);
        case 'ideogram-upscale':
          return ideogramUpscale(job, report, signal);
        default:
          // other families run on their own engines (local-face, …); defineEngine only hands this one its KINDS
          throw new EngineError('unsupported', 'This engine cannot run this task.', { detail: `${job.kind} is not a kind of the local engine` });
      }
    },
  });
}
