/**
 * @module The MediaStore port: where generated and uploaded images, videos and songs live. The API hands out
 * `url(key)`; those URLs never expire (the store keeps files for good, the API serves them
 * at GET /media/<key>). Keys are flat names such as `<task id>-grid.png`.
 */

interface StoredMedia {
  data: Buffer;
  contentType: string;
}

/** What a store knows of an object without reading it. */
interface MediaStat {
  size: number;
  contentType: string;
}

/** Bytes `start` to `end` of an object, both inclusive (as in HTTP's Content-Range). */
export interface ByteRange {
  start: number;
  end: number;
}

export interface MediaStore {
  /** Stores `data` under `key` (overwriting: keys are deterministic per task) and answers its public URL. */
  put(key: string, data: Buffer, contentType: string): Promise<string>;
  /** The whole object in memory: for the callers that need its bytes (engines, workers), not for serving it. */
  get(key: string): Promise<StoredMedia | undefined>;
  /** Size and content type of `key`, without reading it; undefined when it is not stored. */
  stat(key: string): Promise<MediaStat | undefined>;
  /**
   * A stream of `key`'s bytes (only `range` when given; it must lie within the size `stat` answered),
   * or undefined when it is not stored. The stream holds a file handle or connection until it is read
   * to the end or cancelled: a caller that gives up on it must cancel it.
   */
  open(key: string, range?: ByteRange): Promise<ReadableStream<Uint8Array> | undefined>;
  /** Whether `key` is stored, without reading it (a submit checks a user's media URL with it). */
  has(key: string): Promise<boolean>;
  /** Removes `key` (nothing when it is not stored): the upload sweep's. Optional for stores that never remove. */
  delete?(key: string): Promise<void>;
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

/**
 * How long a cache may keep `key`: generated media for good (a key's bytes never change
 * meaning); an upload (POST /upload, /upload-audio: `upload-…`) a day, as it is removed after
 * its retention unless a task uses it.
 */
export function cacheControlOf(key: string): string {
  return key.startsWith('upload-') ? 'public, max-age=86400' : 'public, max-age=31536000, immutable';
}

export function isMediaKey(key: string): boolean {
  return MEDIA_KEY_PATTERN.test(key);
}

export function contentTypeOfKey(key: string): string | undefined {
  return MEDIA_TYPES[key.slice(key.lastIndexOf('.') + 1)];
}
