/**
 * @module The default MediaStore: files in one directory on local disk (DATA_DIR/media in
 * embedded mode), served by the API at `<publicUrl>/media/<key>`.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { contentTypeOfKey, isMediaKey, type MediaStore } from './media-store.ts';

export interface DiskMediaStoreOptions {
  /** Directory holding the files; created when missing. */
  dir: string;
  /** Public origin of the API that serves GET /media/<key>, e.g. http://localhost:8080. */
  publicUrl: string;
}

function assertKey(key: string): void {
  if (!isMediaKey(key)) throw new Error(`invalid media key: ${JSON.stringify(key)}`);
}

export function createDiskMediaStore(options: DiskMediaStoreOptions): MediaStore {
  const dir = path.resolve(options.dir);
  const base = `${options.publicUrl.replace(/\/+$/, '')}/media/`;
  let ready: Promise<unknown> | undefined;

  return {
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
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async has(key) {
      if (!isMediaKey(key)) return false;
      try {
        return (await stat(path.join(dir, key))).isFile();
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
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
