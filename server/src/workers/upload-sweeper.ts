/**
 * @module The periodic upload sweep (services/uploads/upload-quota.ts): uploads past their
 * expires_at (UPLOAD_RETENTION_DAYS, default 7) that no task refers to are removed from the
 * media store and the table; referenced ones are kept. Every API instance runs one; they
 * share the work safely (a row is deleted once, its file removed by whoever deleted it).
 */
import type { Db } from '@aim/supabase/db';
import type { Logger } from '../logger.ts';
import { sweepExpiredUploads } from '../services/uploads/upload-quota.ts';
import type { MediaStore } from '../storage/media-store.ts';
import { periodic } from './periodic.ts';

const DEFAULT_INTERVAL_MS = 10 * 60_000;

interface UploadSweeper {
  start(): void;
  /** Stops and waits for a sweep in progress. */
  stop(): Promise<void>;
  /** One sweep; answers the keys removed. */
  sweep(): Promise<string[]>;
}

export function createUploadSweeper(options: { db: Db; media: MediaStore; log: Logger; intervalMs?: number }): UploadSweeper {
  const { db, media, log } = options;
  async function sweep(): Promise<string[]> {
    const removed = await sweepExpiredUploads({ db, media });
    if (removed.length > 0) log.info('expired uploads removed', { count: removed.length });
    return removed;
  }
  const timer = periodic(sweep, {
    intervalMs: options.intervalMs ?? DEFAULT_INTERVAL_MS,
    onError: (error) => log.error('upload sweep failed', { error: error instanceof Error ? error.message : String(error) }),
  });
  return { start: timer.start, stop: timer.stop, sweep };
}

/** Creates and starts the sweep (main.ts). */
export function startUploadSweeper(options: { db: Db; media: MediaStore; log: Logger }): UploadSweeper {
  const sweeper = createUploadSweeper(options);
  sweeper.start();
  return sweeper;
}
