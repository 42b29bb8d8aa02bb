/**
 * @module ai-photo-generate on the local face engine (local-engine.md §4): a real face swap of
 * the trained person onto portrait templates, not a generative model. The templates are picked
 * for the subject (gender, age, skin tone) and the prompt (scene, clothing, expression,
 * framing; see templates.ts), each at most once a batch while others match. Per photo: the
 * template cut to its framing (skipped when its own face already is the person); the reference
 * crop whose pose and mouth match its face best; the swap at the template's own resolution;
 * the result framed to the asked size; a colour grade and light from the prompt and a visible
 * label; the identity measured on the delivered picture. Photo i depends only on the seed, the
 * prompt, the subject, the size and i, so a seed repeats its photos.
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
import type { Point } from '../face-models.ts';
import { prepareImage } from '../images.ts';
import type { RgbImage } from '../protocol.ts';
import type { Region } from '../warp.ts';
import { chooseReference, type FacePose } from './choose-reference.ts';
import { frameTemplate, MAX_SIDE, outputSize } from './framing.ts';
import { gradeAndLabel, gradeFor, lightFor, lightVariant } from './grades.ts';
import { identitySimilarity, SAME_PERSON_THRESHOLD } from './identity.ts';
import { labelText } from './label.ts';
import { cropImage } from './pixels.ts';
import { type IdentityProfile, readIdentity, round } from './profile.ts';
import type { AiPhotoSettings } from './settings.ts';
import { type AnalysedTemplate, analysedTemplate, planTemplates, promptWish, skinToneOf, type TemplateChoice, templateCatalogue } from './templates.ts';
import { analyseFaces, swapOnto } from './worker-calls.ts';

type GenerateJob = Extract<EngineJob, { kind: 'ai-photo-generate' }>;

const GENERATION_NOTE =
  "Simulated, template-based: the trained face swapped onto openly licensed portrait templates (Face Research Lab London Set, CC BY 4.0; NASA portraits, public domain) chosen for the subject's gender, age and skin tone and the prompt's scene, clothing, expression and framing; the prompt also sets the colour grade and light. Not a generative model: bodies, hair, clothes and backgrounds are the templates'.";

/** Most photos one generation makes. */
const MAX_COUNT = 8;

interface ReferenceFace {
  image: RgbImage;
  mesh: Point[];
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
  return face && face.embedding.length > 0 ? identitySimilarity(face.embedding, identity) : null;
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

  const wish = promptWish(job.prompt);
  const light = lightFor(job.prompt);
  const subject = { ...job.identity.subject, skinTone: skinToneOf(profile.skin_tone.rgb) };
  // planned for the most photos a run makes, so photo i does not depend on the count asked
  const plan = planTemplates(templateCatalogue(), subject, job.prompt, seed, MAX_COUNT);
  let cursor = 0;
  const skipped = new Set<string>();
  /** The next planned template whose face is not already the trained person's. */
  async function nextTemplate(): Promise<{ choice: TemplateChoice; template: AnalysedTemplate; before: number }> {
    while (cursor < plan.length) {
      const choice = plan[cursor];
      cursor += 1;
      if (skipped.has(choice.entry.id)) continue;
      const template = await analysedTemplate(choice.entry, choice.framing, signal);
      const before = identitySimilarity(template.face.embedding, identity);
      // a template showing this very person would "succeed" without any swap: leave it out
      if (before >= SAME_PERSON_THRESHOLD) {
        skipped.add(choice.entry.id);
        continue;
      }
      return { choice, template, before };
    }
    throw new EngineError('invalid_input', 'No portrait template can be used: every template already shows this person.', { retryable: false });
  }
  report({ percentage: 5 });

  const matchReference = referencePool(job.identity, profile, settings, signal);
  const step = 90 / count;
  const images: EngineImage[] = [];
  const generation = {
    template_ids: [] as string[],
    templates: [] as Record<string, unknown>[],
    reference_images: [] as number[],
    identity_scores: [] as { before: number; after: number | null }[],
  };

  for (let i = 0; i < count; i += 1) {
    throwIfAborted(signal);
    const { choice, template, before } = await nextTemplate();
    const { pose, mouthGap } = template.face;
    const reference = await matchReference({ yaw: pose.yaw, pitch: pose.pitch, mouthGap }, new HashStream('ai-photo-generate', seed, i), choice.variant);
    report({ percentage: 5 + step * (i + 0.35) });
    // the swap at the template's own resolution, then the whole picture framed: face and body stay alike in sharpness
    const swapped = await swapOnto(
      { source: reference.face.image, sourceMesh: reference.face.mesh, target: template.image, targetMesh: template.face.mesh },
      signal,
    );
    const framed = await frameTemplate(swapped, template.face, width, height);
    report({ percentage: 5 + step * (i + 0.6) });
    const photoLight = lightVariant(light, choice.variant);
    const data = await gradeAndLabel(framed.image, grade, labelText(i), settings.format, photoLight);
    report({ percentage: 5 + step * (i + 0.75) });
    const after = await scoreDelivered(data, framed.mesh, identity, settings, signal);
    images.push({ source: 'buffer', data, contentType: settings.format === 'png' ? 'image/png' : 'image/jpeg', width, height });
    const { entry } = choice;
    generation.template_ids.push(entry.id);
    generation.templates.push({
      id: entry.id,
      framing: choice.framing,
      light: photoLight,
      repeat: choice.variant,
      gender: entry.gender,
      age_band: entry.age_band,
      skin_tone: entry.skin_tone,
      scene: entry.scene,
      clothing: entry.clothing,
      credit: `${entry.source.subject}; ${entry.source.collection}, ${entry.source.author}; ${entry.source.licence}`,
    });
    generation.reference_images.push(reference.position);
    generation.identity_scores.push({ before: round(before, 3), after: after === null ? null : round(after, 3) });
    report({ percentage: 5 + step * (i + 1) });
  }

  const scores = generation.identity_scores
    .map(({ before: b, after: a }) => `${b.toFixed(2)} → ${a === null ? 'no face re-detected' : a.toFixed(2)}`)
    .join(', ');
  const unshown =
    wish.unmatched.length > 0 ? ` No template shows ${wish.unmatched.join(', ')}: the closest portraits (plain studio backgrounds) were used.` : '';
  return {
    engine: 'local-face',
    method: 'template-faceswap',
    simulated: true,
    note: `${GENERATION_NOTE}${unshown} Identity similarity to the trained person (cosine of face embeddings less the population mean), template face → delivered photo: ${scores}.`,
    layout: 'set',
    image: images[0],
    images,
    seed,
    width,
    height,
    data: {
      generation: {
        method: 'template-faceswap',
        note: GENERATION_NOTE,
        grade,
        light,
        subject: { gender: subject.gender, age: subject.age, ethnicity: subject.ethnicity, skin_tone: subject.skinTone },
        prompt_match: wish,
        ...generation,
        skipped_templates: [...skipped],
      },
    },
  };
}
