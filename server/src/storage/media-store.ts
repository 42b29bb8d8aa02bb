/**
 * @module The MediaStore port: where generated and uploaded images, videos and songs live. The API hands out
 * `url(key)`; those URLs never expire (the store keeps files for good, the API serves them
 * at GET /media/<key>). Keys are flat names such as `<task id>-grid.png`.
 */

interface StoredMedia {
  data: Buffer;
  contentType: string;
}

export interface MediaStore {
  /** Stores `data` under `key` (overwriting: keys are deterministic per task) and answers its public URL. */
  put(key: string, data: Buffer, contentType: string): Promise<string>;
  get(key: string): Promise<StoredMedia | undefined>;
  /** Whether `key` is stored, without reading it (a submit checks a user's media URL with it). */
  has(key: string): Promise<boolean>;
  /** The public URL of `key`. */
  url(key: string): string;
  /** The key of a URL this store handed out, or undefined for any other URL. */
  keyOf(url: string): string | undefined;
}

/** Types we store and serve, by file extension: pictures, videos and songs. */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
  wav: 'audio/wav',
  ogg: 'audio/ogg',
  m4a: 'audio/mp4',
};

/** A flat, safe key: letters, digits, `-`, `_`, one `.` before a known extension. */
const MEDIA_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}\.(png|jpg|gif|webp|mp4|webm|mp3|wav|ogg|m4a)$/;

export function isMediaKey(key: string): boolean {
  return MEDIA_KEY_PATTERN.test(key);
}

export function contentTypeOfKey(key: string): string | undefined {
  return MEDIA_TYPES[key.slice(key.lastIndexOf('.') + 1)];
}
