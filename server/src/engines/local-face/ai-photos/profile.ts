/**
 * @module The identity profile a local AI photo training stores (the train task's result
 * `data.identity`) and a generation reads back: JSON, about 10 KB (the 1024-d centroid
 * rounded to 4 decimals, a few numbers per reference crop). The reference crops themselves
 * are the train task's images, in the order of `profile.references`.
 */
import { z } from 'zod';
import { EngineError, type TrainedIdentity } from '../../engine.ts';

export const IDENTITY_NOTE = 'Identity profile from face analysis; no generative model was trained.';

const referenceSchema = z.object({
  /** Position of the photo in the upload, from 0. */
  photo: z.number().int().min(0),
  yaw: z.number(),
  pitch: z.number(),
  roll: z.number(),
  mouth_gap: z.number(),
  sharpness: z.number(),
  quality: z.number(),
  /** Median cosine to the other kept photos. */
  similarity: z.number(),
});

const profileSchema = z.object({
  /** Mean of the kept photos' faceres embeddings, L2-normalised. */
  centroid: z.array(z.number()).min(16),
  /** The reference crops (the train task's images), best first. */
  references: z.array(referenceSchema).min(1),
  consistency: z.object({ median_similarity: z.number(), min_similarity: z.number(), threshold: z.number() }),
  skin_tone: z.object({ rgb: z.tuple([z.number(), z.number(), z.number()]), hex: z.string() }),
  estimate: z.object({ age: z.number().nullable(), gender: z.enum(['female', 'male']).nullable(), gender_share: z.number() }),
  crop: z.object({ size: z.number().int(), eye_distance: z.number(), eye_line: z.number() }),
});

const storedIdentitySchema = z.object({
  method: z.literal('identity-profile'),
  note: z.string(),
  profile: profileSchema,
  rejected: z.array(z.object({ index: z.number().int(), reason: z.string() })),
  kept: z.number().int(),
});

export type ReferenceProfile = z.infer<typeof referenceSchema>;
export type IdentityProfile = z.infer<typeof profileSchema>;
export type StoredIdentity = z.infer<typeof storedIdentitySchema>;

/** A number rounded to `digits` decimals (the profile stays small and readable). */
export const round = (value: number, digits = 4) => Number(value.toFixed(digits));

/**
 * The profile of an identity this engine trained, checked; fails the generation clearly when the
 * identity was trained elsewhere or its profile or crops are missing.
 */
export function readIdentity(identity: TrainedIdentity): IdentityProfile {
  if (identity.engine !== 'local-face') {
    throw new EngineError(
      'invalid_input',
      `This model was trained by another engine (${identity.engine}); the local engine can only generate from models it trained.`,
      {
        retryable: false,
      },
    );
  }
  const parsed = storedIdentitySchema.safeParse(identity.data?.identity);
  if (!parsed.success) {
    throw new EngineError('invalid_input', 'This model has no identity profile to generate from; train it again.', {
      retryable: false,
      detail: parsed.error.message,
    });
  }
  const { profile } = parsed.data;
  if (identity.images.length !== profile.references.length) {
    throw new EngineError('invalid_input', 'The reference photos of this model are missing; train it again.', {
      retryable: false,
      detail: `${identity.images.length} images for ${profile.references.length} references`,
    });
  }
  return profile;
}
