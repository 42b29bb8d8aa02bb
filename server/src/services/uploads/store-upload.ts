/**
 * @module Storing an upload: recorded first (a free account's quota enforced under its row
 * lock), then put in the media store; a record whose file could not be stored is forgotten.
 */
import type { Db } from '@aim/supabase/db';
import type { MediaStore } from '../../storage/media-store.ts';
import { forgetUpload, recordUpload, type UploadPolicy, uploadPolicyFromEnv } from './upload-quota.ts';

export interface UploadDeps {
  db: Db;
  /** Quota and retention; default from the environment (uploadPolicyFromEnv). */
  uploadPolicy?: UploadPolicy;
}

export function policyOf(deps: UploadDeps): UploadPolicy {
  return deps.uploadPolicy ?? uploadPolicyFromEnv();
}

export async function storeUpload(
  deps: UploadDeps & { media: MediaStore },
  userId: string,
  key: string,
  data: Buffer,
  contentType: string,
): Promise<{ url: string; expiresAt: string }> {
  const expiresAt = await recordUpload(deps.db, policyOf(deps), userId, key, data.length);
  try {
    return { url: await deps.media.put(key, data, contentType), expiresAt: expiresAt.toISOString() };
  } catch (error) {
    await forgetUpload(deps.db, key).catch(() => {});
    throw error;
  }
}
