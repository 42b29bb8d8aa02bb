/**
 * The face evaluation set (test/fixtures/face-eval, real photos, see its README) for the
 * identity calibration: each person's photos as read from the manifest, the same-person and
 * different-person cosine similarities of the face embedding, and "simulated extra
 * variation" of a photo (a tighter crop, a turn, darker or brighter, softer, a colour cast)
 * for sets larger than the two photos most people have. The variants are of one shot, so
 * they flatter the same-person figures; only `debruine-lisa` has two real sessions.
 */
import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { cosineSimilarity } from '../../src/engines/local-face/face-models.ts';

const ROOT = new URL('../fixtures/face-eval/', import.meta.url);

export interface EvalPerson {
  id: string;
  occasions: number;
  /** Self-reported (London Set), or null. */
  ethnicity: string | null;
  photos: Buffer[];
  /** Each photo's occasion, as the manifest words it. */
  occasion: string[];
}

interface Manifest {
  people: { id: string; occasions: number; ethnicitySelfReported: string | null; files: { file: string; occasion: string }[] }[];
}

/** The people of the set (all, or those `ids` name, in manifest order), with their photos' bytes. */
export async function evalPeople(ids?: readonly string[]): Promise<EvalPerson[]> {
  const manifest = JSON.parse(await readFile(new URL('manifest.json', ROOT), 'utf8')) as Manifest;
  const chosen = manifest.people.filter((person) => !ids || ids.includes(person.id));
  return Promise.all(
    chosen.map(async (person) => ({
      id: person.id,
      occasions: person.occasions,
      ethnicity: person.ethnicitySelfReported,
      occasion: person.files.map((file) => file.occasion),
      photos: await Promise.all(person.files.map(({ file }) => readFile(new URL(file, ROOT)))),
    })),
  );
}

/** Variant `i` (0, 1, 2, …) of a photo: deterministic, JPEG, same size as the photo. */
export async function variant(photo: Buffer, i: number): Promise<Buffer> {
  const { width = 640, height = 640 } = await sharp(photo).metadata();
  const kind = i % 3;
  if (kind === 0) {
    // tighter crop, darker
    const [w, h] = [Math.round(width * 0.8), Math.round(height * 0.8)];
    return sharp(photo)
      .extract({ left: Math.round((width - w) / 2), top: Math.round((height - h) * 0.35), width: w, height: h })
      .resize(width, height)
      .modulate({ brightness: 0.75 })
      .jpeg({ quality: 80 })
      .toBuffer();
  }
  if (kind === 1) {
    // turned 8°, brighter and flatter
    return sharp(photo)
      .rotate(8, { background: '#808080' })
      .resize(width, height, { fit: 'cover' })
      .modulate({ brightness: 1.2, saturation: 0.7 })
      .linear(0.85, 20)
      .jpeg({ quality: 75 })
      .toBuffer();
  }
  // half the resolution, warm cast, heavier compression
  return sharp(
    await sharp(photo)
      .resize(Math.round(width / 2))
      .toBuffer(),
  )
    .resize(width, height)
    .tint({ r: 255, g: 215, b: 170 })
    .jpeg({ quality: 55 })
    .toBuffer();
}

/** Pairwise similarities (plain cosine unless told) of embeddings labelled by person: same-person and different-person. */
export function pairSimilarities(
  labelled: readonly { person: string; embedding: readonly number[] }[],
  similarity: (a: readonly number[], b: readonly number[]) => number = cosineSimilarity,
): { same: number[]; different: number[] } {
  const same: number[] = [];
  const different: number[] = [];
  for (let i = 0; i < labelled.length; i += 1) {
    for (let j = i + 1; j < labelled.length; j += 1) {
      (labelled[i].person === labelled[j].person ? same : different).push(similarity(labelled[i].embedding, labelled[j].embedding));
    }
  }
  return { same, different };
}
