/**
 * @module POST /upload-audio: an audio file a client wants to use (suno-upload's audio_url),
 * stored in the media store under a fresh key. The type is read from the bytes (never the
 * file name or the declared type): MP3, WAV, Ogg or M4A, so the URL only ever serves one of those.
 */
import { randomUUID } from 'node:crypto';
import { ApiError } from '../../errors.ts';
import { MAX_AUDIO_BYTES } from '../../storage/image-fetcher.ts';
import type { MediaStore } from '../../storage/media-store.ts';
import { detectMediaType } from '../../storage/media-type.ts';
import { storeUpload, type UploadDeps } from '../uploads/store-upload.ts';

export const MAX_AUDIO_UPLOAD_BYTES = MAX_AUDIO_BYTES;

export const AUDIO_TOO_LARGE_MESSAGE = `Audio must be at most ${MAX_AUDIO_UPLOAD_BYTES / 1024 / 1024} MB`;
export const AUDIO_TYPE_MESSAGE = 'Only mp3, wav, ogg and m4a audio files are accepted';

/** An MPEG audio frame header at `o`: sync, a known version, layer, bitrate and sample rate. */
function frameHeaderAt(data: Uint8Array, o: number): boolean {
  return (
    o + 4 <= data.length &&
    data[o] === 0xff &&
    (data[o + 1] & 0xe0) === 0xe0 &&
    ((data[o + 1] >> 3) & 3) !== 1 &&
    ((data[o + 1] >> 1) & 3) !== 0 &&
    data[o + 2] >> 4 !== 0 &&
    data[o + 2] >> 4 !== 15 &&
    ((data[o + 2] >> 2) & 3) !== 3
  );
}

/**
 * More than the magic bytes for MP3, whose sync word random data often starts with: after any
 * ID3v2 tag, a valid frame header, and another one within the next 4 KB (frames are at most ~2.9 KB).
 */
function looksLikeMp3(data: Uint8Array): boolean {
  let o = 0;
  if (data[0] === 0x49 && data[1] === 0x44 && data[2] === 0x33 && data.length >= 10) {
    o = 10 + ((data[6] & 0x7f) << 21) + ((data[7] & 0x7f) << 14) + ((data[8] & 0x7f) << 7) + (data[9] & 0x7f);
    while (o < data.length && data[o] === 0) o++;
  }
  if (!frameHeaderAt(data, o)) return false;
  for (let next = o + 4; next < Math.min(data.length, o + 4096); next++) if (frameHeaderAt(data, next)) return true;
  return false;
}

export async function uploadAudio(deps: UploadDeps & { media: MediaStore }, userId: string, data: Buffer): Promise<{ audioURL: string; expires_at: string }> {
  if (data.length === 0) throw new ApiError('validation_failed', 'audio: The file is empty');
  if (data.length > MAX_AUDIO_UPLOAD_BYTES) throw new ApiError('payload_too_large', AUDIO_TOO_LARGE_MESSAGE);
  const type = detectMediaType(data);
  if (type?.kind !== 'audio' || (type.extension === 'mp3' && !looksLikeMp3(data))) throw new ApiError('unsupported_media_type', AUDIO_TYPE_MESSAGE);
  const stored = await storeUpload(deps, userId, `upload-${randomUUID()}.${type.extension}`, data, type.contentType);
  return { audioURL: stored.url, expires_at: stored.expiresAt };
}
