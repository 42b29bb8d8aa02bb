/**
 * @module ai-photo-generate on the local face engine (local-engine.md §4): a real face swap of
 * the trained person onto portrait templates, not a generative model. Per photo: a template
 * (seeded order; skipped when its own face already is the person), framed to the asked size;
 * the reference crop whose pose and mouth match its face best; the swap; a colour grade from
 * the prompt and a visible label; the identity measured on the delivered picture. Photo i
 * depends only on the seed, the prompt, the size and i, so a seed repeats its photos.
 */
import { randomInt } from 'node:crypto';
import { throwIfAborted } from '../../define-engine.ts';
import {
  EngineError,
  type EngineImage,
  type EngineJob,
  type EngineResult,
  type ImageInput,
  type ProgressListener,
  type TrainedIdentity,
} from '../../engine.ts';
import { HashStream } from '../../local/random.ts';
import { cosineSimilarity, type Point } from '../face-models.ts';
import { prepareImage } from '../images.ts';
import type { RgbImage } from '../protocol.ts';
import type { Region } from '../warp.ts';
import { chooseReference, type FacePose } from './choose-reference.ts';
import { frameTemplate, MAX_SIDE, outputSize } from './framing.ts';
import { gradeAndLabel, gradeFor } from './grades.ts';
import { SAME_PERSON_THRESHOLD } from './identity.ts';
import { labelText } from './label.ts';
import { cropImage } from './pixels.ts';
import { type IdentityProfile, readIdentity, round } from './profile.ts';
import type { AiPhotoSettings } from './settings.ts';
import { type AnalysedTemplate, analysedTemplate, TEMPLATE_VARIANTS } from './templates.ts';
import { analyseFaces, swapOnto } from './worker-calls.ts';

type GenerateJob = Extract<EngineJob, { kind: 'ai-photo-generate' }>;

const GENERATION_NOTE =
  'Simulated, template-based: the trained face swapped onto public-domain portrait templates (mirrored, cut and colour-graded from the prompt); not a generative model, the prompt only chooses the grade and the framing.';

/** Most photos one generation makes. */
const MAX_COUNT = 8;
/** Each time the templates run out, the next round cuts this much closer. */
const REPEAT_ZOOM = 0.12;

interface ReferenceFace {
  image: RgbImage;
  mesh: Point[];
}

/** The usable templates in the seed's order; a prompt asking for a close-up or a wider portrait puts those first. */
function orderTemplates(templates: readonly AnalysedTemplate[], prompt: string, seed: number): AnalysedTemplate[] {
  const stream = new HashStream('ai-photo-templates', seed);
  const shuffled = [...templates];
  for (let i = shuffled.length - 1; i > 0; i -= 1) {
    const j = stream.int(0, i);
    [shuffled[i], shuffled[j]] = [shuffled[j], shuffled[i]];
  }
  const preferred = /\b(close[- ]?up|headshot|face)\b/i.test(prompt)
    ? 'close'
    : /\b(half[- ]body|upper body|waist|full[- ]length|wide)\b/i.test(prompt)
      ? 'portrait'
      : undefined;
  if (!preferred) return shuffled;
  return [...shuffled.filter((t) => t.variant.framing === preferred), ...shuffled.filter((t) => t.variant.framing !== preferred)];
}

function normalised(vector: readonly number[]): number[] {
  const norm = Math.hypot(...vector);
  return norm > 0 ? vector.map((value) => value / norm) : [...vector];
}

/** The face of a reference crop, or null when it cannot be read or shows no face. */
async function loadReference(photo: ImageInput, settings: AiPhotoSettings, signal: AbortSignal): Promise<ReferenceFace | null> {
  let prepared: Awaited<ReturnType<typeof prepareImage>>;
  try {
    prepared = await prepareImage(photo.data, 'source', { maxPixels: settings.limits.maxPixels, detectionSize: settings.limits.detectionSize });
  } catch {
    return null;
  }
  const [face] = (await analyseFaces(prepared, undefined, signal)).faces;
  return face ? { image: prepared.pixels, mesh: face.mesh } : null;
}

/**
 * Picks the reference crop for a template face (see choose-reference.ts) and finds its face,
 * once per crop and run; a crop showing no face is passed over for the rest of the run.
 */
function referencePool(identity: TrainedIdentity, profile: IdentityProfile, settings: AiPhotoSettings, signal: AbortSignal) {
  const loaded = new Map<number, Promise<ReferenceFace | null>>();
  const excluded = new Set<number>();
  return async function match(pose: FacePose, stream: HashStream, rank: number): Promise<{ position: number; face: ReferenceFace }> {
    for (;;) {
      const position = chooseReference(profile.references, pose, stream, excluded, rank);
      if (position === undefined) {
        throw new EngineError('invalid_input', 'No face was found in the reference photos of this model; train it again.', { retryable: false });
      }
      let loading = loaded.get(position);
      if (!loading) {
        loading = loadReference(identity.images[position], settings, signal);
        loaded.set(position, loading);
      }
      const face = await loading;
      if (face) return { position, face };
      excluded.add(position);
    }
  };
}

/** The mesh's bounding box grown by `grow` of its size on each side, inside `width` × `height`. */
function around(mesh: readonly Point[], grow: number, width: number, height: number): Region {
  const xs = mesh.map(([x]) => x);
  const ys = mesh.map(([, y]) => y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const x = Math.max(0, Math.floor(minX - (maxX - minX) * grow));
  const y = Math.max(0, Math.floor(minY - (maxY - minY) * grow));
  return { x, y, width: Math.min(width, Math.ceil(maxX + (maxX - minX) * grow)) - x, height: Math.min(height, Math.ceil(maxY + (maxY - minY) * grow)) - y };
}

/**
 * Similarity to the identity of the face in the delivered picture (decoded from its bytes)
 * where the template face was, found on a cut around that spot; null when none is found.
 */
async function scoreDelivered(
  picture: Buffer,
  mesh: readonly Point[],
  identity: readonly number[],
  settings: AiPhotoSettings,
  signal: AbortSignal,
): Promise<number | null> {
  const { pixels } = await prepareImage(picture, 'target', { maxPixels: settings.limits.maxPixels, detectionSize: MAX_SIDE });
  const [face] = (await analyseFaces({ pixels: cropImage(pixels, around(mesh, 0.4, pixels.width, pixels.height)) }, undefined, signal)).faces;
  return face && face.embedding.length > 0 ? cosineSimilarity(face.embedding, identity) : null;
}

export async function runGenerate(job: GenerateJob, settings: AiPhotoSettings, report: ProgressListener, signal: AbortSignal): Promise<EngineResult> {
  const profile = readIdentity(job.identity);
  const { count } = job;
  if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) {
    throw new EngineError('invalid_input', `The number of photos must be between 1 and ${MAX_COUNT}.`, { retryable: false, detail: String(count) });
  }
  const seed = job.seed ?? randomInt(0, 2 ** 32 - 1);
  const { width, height } = outputSize(job);
  const grade = gradeFor(job.prompt);
  const identity = normalised(profile.centroid);
  report({ percentage: 2, status: 'processing' });

  const templates: { template: AnalysedTemplate; before: number }[] = [];
  for (const variant of TEMPLATE_VARIANTS) {
    const template = await analysedTemplate(variant, signal);
    templates.push({ template, before: cosineSimilarity(template.face.embedding, identity) });
  }
  // a template showing this very person would "succeed" without any swap: leave it out
  const skipped = templates.filter(({ before }) => before >= SAME_PERSON_THRESHOLD).map(({ template }) => template.variant.id);
  const usable = templates.filter(({ before }) => before < SAME_PERSON_THRESHOLD);
  if (usable.length === 0) {
    throw new EngineError('invalid_input', 'No portrait template can be used: every template already shows this person.', { retryable: false });
  }
  const before = new Map(usable.map(({ template, before: score }) => [template.variant.id, score]));
  const order = orderTemplates(
    usable.map(({ template }) => template),
    job.prompt,
    seed,
  );
  report({ percentage: 5 });

  const matchReference = referencePool(job.identity, profile, settings, signal);
  const step = 90 / count;
  const images: EngineImage[] = [];
  const generation = { template_ids: [] as string[], reference_images: [] as number[], identity_scores: [] as { before: number; after: number | null }[] };

  for (let i = 0; i < count; i += 1) {
    throwIfAborted(signal);
    const template = order[i % order.length];
    // each time the templates run out: cut closer and take the next-best reference
    const lap = Math.floor(i / order.length);
    const framed = await frameTemplate(template.image, template.face, width, height, 1 + REPEAT_ZOOM * lap);
    const { pose, mouthGap } = template.face;
    const reference = await matchReference({ yaw: pose.yaw, pitch: pose.pitch, mouthGap }, new HashStream('ai-photo-generate', seed, i), lap);
    report({ percentage: 5 + step * (i + 0.35) });
    const swapped = await swapOnto({ source: reference.face.image, sourceMesh: reference.face.mesh, target: framed.image, targetMesh: framed.mesh }, signal);
    report({ percentage: 5 + step * (i + 0.6) });
    const data = await gradeAndLabel(swapped, grade, labelText(i), settings.format);
    report({ percentage: 5 + step * (i + 0.75) });
    const after = await scoreDelivered(data, framed.mesh, identity, settings, signal);
    images.push({ source: 'buffer', data, contentType: settings.format === 'png' ? 'image/png' : 'image/jpeg', width, height });
    generation.template_ids.push(template.variant.id);
    generation.reference_images.push(reference.position);
    generation.identity_scores.push({ before: round(before.get(template.variant.id) ?? 0, 3), after: after === null ? null : round(after, 3) });
    report({ percentage: 5 + step * (i + 1) });
  }

  const scores = generation.identity_scores
    .map(({ before: b, after: a }) => `${b.toFixed(2)} → ${a === null ? 'no face re-detected' : a.toFixed(2)}`)
    .join(', ');
  return {
    engine: 'local-face',
    method: 'template-faceswap',
    simulated: true,
    note: `${GENERATION_NOTE} Identity similarity to the trained person (cosine of face embeddings), template face → delivered photo: ${scores}.`,
    layout: 'set',
    image: images[0],
    images,
    seed,
    width,
    height,
    data: { generation: { method: 'template-faceswap', note: GENERATION_NOTE, grade, ...generation, skipped_templates: skipped } },
  };
}
