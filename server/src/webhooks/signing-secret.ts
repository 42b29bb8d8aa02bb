/**
 * @module The account's signing secret (`whsec_` + 32 random bytes in base64): made on first
 * use, shown to its owner on the API Keys screen, rotated from there. After a rotation the
 * replaced secret keeps signing beside the new one for SIGNING_SECRET_OVERLAP_MS (both `v1,`
 * signatures in `webhook-signature`), so receivers can switch without losing a delivery;
 * then it is dropped.
 */
import type { Queryable } from '@aim/supabase/db';
import { deliveryRepository, type SigningSecrets } from './delivery-repository.ts';
import { generateSigningSecret } from './signature.ts';

/** How long a replaced secret keeps signing: 24 h. */
export const SIGNING_SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

/** The account's secrets at `now` (made on first use). */
export function accountSecrets(q: Queryable, userId: string, now: Date): Promise<SigningSecrets> {
  return deliveryRepository(q).getOrCreateSigningSecrets(userId, generateSigningSecret(), now);
}

/** The secrets that sign a delivery now: the current one first, then the replaced one in its overlap. */
export function signingKeys(s: SigningSecrets): string[] {
  return s.previous_secret ? [s.secret, s.previous_secret] : [s.secret];
}

/** A new current secret; the one it replaces signs too until now + 24 h. */
export function rotateAccountSecret(q: Queryable, userId: string, now: Date): Promise<SigningSecrets> {
  return deliveryRepository(q).rotateSigningSecret(userId, generateSigningSecret(), now, new Date(now.getTime() + SIGNING_SECRET_OVERLAP_MS));
}
