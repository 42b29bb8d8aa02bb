/**
 * @module Recognises a stored file by its first bytes (never by name or declared type):
 * the pictures of image-type.ts, and the videos and songs engines make or upstreams serve
 * (MP4, WebM, MP3, WAV, Ogg, M4A).
 */
import { detectImageType } from './image-type.ts';

export interface MediaType {
  kind: 'image' | 'video' | 'audio';
  contentType: string;
  extension: string;
}

const ascii = (data: Uint8Array, offset: number, text: string) => [...text].every((c, i) => data[offset + i] === c.charCodeAt(0));

/**
 * @example
 * detectMediaType(mp4Bytes) // { kind: 'video', contentType: 'video/mp4', extension: 'mp4' }
 */
export function detectMediaType(data: Uint8Array): MediaType | undefined {
  const image = detectImageType(data);
  if (image) return { kind: 'image', ...image };
  if (ascii(data, 4, 'ftyp')) {
    // ISO base media: the major brand tells an audio-only file (M4A) from a video
    return ascii(data, 8, 'M4A')
      ? { kind: 'audio', contentType: 'audio/mp4', extension: 'm4a' }
      : { kind: 'video', contentType: 'video/mp4', extension: 'mp4' };
  }
  if (data[0] === 0x1a && data[1] === 0x45 && data[2] === 0xdf && data[3] === 0xa3) return { kind: 'video', contentType: 'video/webm', extension: 'webm' };
  if (ascii(data, 0, 'RIFF') && ascii(data, 8, 'WAVE')) return { kind: 'audio', contentType: 'audio/wav', extension: 'wav' };
  if (ascii(data, 0, 'OggS')) return { kind: 'audio', contentType: 'audio/ogg', extension: 'ogg' };
  // MP3: an ID3v2 tag, or straight into an MPEG audio frame (11 sync bits)
  if (ascii(data, 0, 'ID3') || (data[0] === 0xff && (data[1] & 0xe0) === 0xe0)) return { kind: 'audio', contentType: 'audio/mpeg', extension: 'mp3' };
  return undefined;
}
