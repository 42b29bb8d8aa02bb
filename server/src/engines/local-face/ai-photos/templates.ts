/**
 * @module The portrait templates of local AI photo generation: public-domain portraits shipped
 * in `server/assets/ai-photo-templates/` (sources and licences in its README), each used as is,
 * mirrored, and cut close around the face, so two portraits give eight templates. A template's
 * face is found once per process (the files never change) and kept with its pixels.
 */
import { readFile } from 'node:fs/promises';
import { prepareImage } from '../images.ts';
import type { FaceAnalysis, RgbImage } from '../protocol.ts';
import { cropImage, mirrorImage } from './pixels.ts';
import { analyseFaces } from './worker-calls.ts';

const TEMPLATE_DIR = new URL('../../../../assets/ai-photo-templates/', import.meta.url);

/** The shipped portraits: one person each, facing the camera. */
const PORTRAITS = [
  { id: 'collins', file: 'eileen-collins.jpg' },
  { id: 'hopper', file: 'grace-hopper.jpg' },
] as const;

type Framing = 'portrait' | 'close';

export interface TemplateVariant {
  /** e.g. `hopper-close-mirror`. */
  id: string;
  file: string;
  mirror: boolean;
  framing: Framing;
}

export const TEMPLATE_VARIANTS: readonly TemplateVariant[] = PORTRAITS.flatMap(({ id, file }) =>
  (['portrait', 'close'] as const).flatMap((framing) =>
    [false, true].map((mirror) => ({ id: [id, framing === 'close' ? 'close' : '', mirror ? 'mirror' : ''].filter(Boolean).join('-'), file, mirror, framing })),
  ),
);

export interface AnalysedTemplate {
  variant: TemplateVariant;
  image: RgbImage;
  /** The template's face (the largest). */
  face: FaceAnalysis;
}

const cache = new Map<string, Promise<AnalysedTemplate>>();

/** A close cut: a square of 2.6 face widths around the face, a little more below it (shoulders). */
function closeRegion(image: RgbImage, box: FaceAnalysis['box']) {
  const side = Math.min(image.width, image.height, Math.round(box[2] * 2.6));
  const centreX = box[0] + box[2] / 2;
  const centreY = box[1] + box[3] * 0.62;
  const x = Math.round(Math.min(Math.max(centreX - side / 2, 0), image.width - side));
  const y = Math.round(Math.min(Math.max(centreY - side / 2, 0), image.height - side));
  return { x, y, width: side, height: side };
}

async function loadTemplate(variant: TemplateVariant, signal: AbortSignal): Promise<AnalysedTemplate> {
  let image: RgbImage;
  if (variant.framing === 'close') {
    const wide = await analysedTemplate({ ...variant, id: variant.id.replace('-close', ''), framing: 'portrait' }, signal);
    image = cropImage(wide.image, closeRegion(wide.image, wide.face.box));
  } else {
    const { pixels } = await prepareImage(await readFile(new URL(variant.file, TEMPLATE_DIR)), 'target', { maxPixels: 4_000_000, detectionSize: 1024 });
    image = variant.mirror ? mirrorImage(pixels) : pixels;
  }
  const [face] = (await analyseFaces({ pixels: image }, undefined, signal)).faces;
  if (!face) throw new Error(`no face found in the template ${variant.id}`);
  return { variant, image, face };
}

/** A template with its face measured (cached per process; a failure is not cached). */
export function analysedTemplate(variant: TemplateVariant, signal: AbortSignal): Promise<AnalysedTemplate> {
  let loading = cache.get(variant.id);
  if (!loading) {
    loading = loadTemplate(variant, signal);
    cache.set(variant.id, loading);
    loading.catch(() => cache.delete(variant.id));
  }
  return loading;
}
