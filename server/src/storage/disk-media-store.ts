/**
 * @module The default MediaStore: files in one directory on local disk (DATA_DIR/media in
 * embedded mode), served by the API at `<publicUrl>/media/<key>`.
 */
import { randomUUID } from 'node:crypto';
import { type FileHandle, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ByteRange, contentTypeOfKey, isMediaKey, type MediaStore } from './media-store.ts';

export interface DiskMediaStoreOptions {
  /** Directory holding the files; created when missing. */
  dir: string;
  /** Public origin of the API that serves GET /media/<key>, e.g. http://localhost:8080. */
  publicUrl: string;
}

function assertKey(key: string): void {
  if (!isMediaKey(key)) throw new Error(`invalid media key: ${JSON.stringify(key)}`);
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Bytes read per pull: a slow reader holds at most this much of the file in memory. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Bytes `range.start`..`range.end` of an open file as a pull stream: each read of the consumer reads one
 * chunk at its position, so nothing is read ahead of the consumer (the HTTP response's backpressure).
 * The handle is closed at the end, on an error, and when the consumer cancels (a client that went away).
 */
function fileRangeStream(handle: FileHandle, range: ByteRange): ReadableStream<Uint8Array> {
  let position = range.start;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= handle.close().catch(() => {});
    return closing;
  };
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const length = Math.min(CHUNK_BYTES, range.end + 1 - position);
          if (length > 0) {
            const chunk = new Uint8Array(length);
            const { bytesRead } = await handle.read(chunk, 0, length, position);
            // the file was cut short under us: fail rather than send fewer bytes than announced
            if (bytesRead === 0) throw new Error(`media file ended at byte ${position}, before ${range.end + 1}`);
            position += bytesRead;
            controller.enqueue(bytesRead === length ? chunk : chunk.subarray(0, bytesRead));
          }
          if (position > range.end) {
            await close();
            controller.close();
          }
        } catch (error) {
          await close();
          controller.error(error);
        }
      },
      cancel: close,
    },
    { highWaterMark: 0 },
  );
}

export function createDiskMediaStore(options: DiskMediaStoreOptions): MediaStore {
  const dir = path.resolve(options.dir);
  const base = `${options.publicUrl.replace(/\/+$/, '')}/media/`;
  let ready: Promise<unknown> | undefined;

  return {
    async delete(key) {
      assertKey(key);
      await rm(path.join(dir, key), { force: true });
    },
    async put(key, data) {
      assertKey(key);
      ready ??= mkdir(dir, { recursive: true });
      await ready;
      // write then rename: a reader never sees half a file
      const tmp = path.join(dir, `.${key}.${randomUUID()}.tmp`);
      await writeFile(tmp, data);
      await rename(tmp, path.join(dir, key));
      return base + key;
    },
    async get(key) {
      const contentType = isMediaKey(key) ? contentTypeOfKey(key) : undefined;
      if (!contentType) return undefined;
      try {
        return { data: await readFile(path.join(dir, key)), contentType };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async stat(key) {
      const contentType = isMediaKey(key) ? contentTypeOfKey(key) : undefined;
      if (!contentType) return undefined;
      try {
        const stats = await stat(path.join(dir, key));
        return stats.isFile() ? { size: stats.size, contentType } : undefined;
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },
    async open(key, range) {
      if (!isMediaKey(key) || !contentTypeOfKey(key)) return undefined;
      let handle: FileHandle;
      try {
        handle = await open(path.join(dir, key), 'r');
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
      try {
        // the handle keeps reading the file it opened even if a put renames a new one over it
        const size = range ? range.end + 1 : (await handle.stat()).size;
        return fileRangeStream(handle, { start: range?.start ?? 0, end: size - 1 });
      } catch (error) {
        await handle.close();
        throw error;
      }
    },
    async has(key) {
      if (!isMediaKey(key)) return false;
      try {
        return (await stat(path.join(dir, key))).isFile();
      } catch (error) {
        if (isMissing(error)) return false;
        throw error;
      }
    },
    url(key) {
      assertKey(key);
      return base + key;
    },
    keyOf(url) {
      if (!url.startsWith(base)) return undefined;
      const key = url.slice(base.length);
      return isMediaKey(key) ? key : undefined;
    },
  };
}
