/**
 * @module Streamed CSV exports of Task Logs and the credit history (issue 15). The dashboard
 * asks for a one-time token with its API key, then lets the browser download
 * GET /exports/<kind>.csv?token=… itself: a navigation streams to disk and carries no
 * Authorization header, hence the token. The answer is written page by page from a keyset
 * loop on (created_at, id): a page is read only when the client has taken the one before
 * (a pull stream with no read-ahead, and @hono/node-server waits for the socket to drain), so
 * server memory stays at one page whatever the account's size, and each page is its own short
 * query (PGlite's one connection is never held for the whole download).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '@aim/supabase/db';
import { ApiError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { type ExportCursor, type ExportKind, exportRepository, type TaskLogFilters } from '../../repositories/export-repository.ts';
import type { Account } from '../../repositories/user-repository.ts';
import { csvLine } from './csv.ts';

/** Rows per query; also the most the server holds of one download at a time. */
export const EXPORT_PAGE_ROWS = 1000;
/** How long a download link works (once). */
const TOKEN_TTL_MS = 60_000;

export const TASK_LOG_COLUMNS = ['task_id', 'type', 'status', 'percentage', 'created_at', 'cost', 'refund', 'prompt', 'message'] as const;
export const CREDIT_HISTORY_COLUMNS = ['id', 'created_at', 'kind', 'delta', 'balance_after', 'task_id', 'task_type', 'invoice_number'] as const;

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

export interface ExportLink {
  url: string;
  expires_at: string;
}

/** POST /exports – a one-time download link of the caller's own rows, for a minute. */
export async function createExportLink(
  deps: { db: Db; config: { publicUrl: string } },
  account: Account,
  kind: ExportKind,
  filters: TaskLogFilters,
): Promise<ExportLink> {
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + TOKEN_TTL_MS);
  await exportRepository(deps.db).createToken({
    tokenHash: hashToken(token),
    userId: account.id,
    kind,
    filters: kind === 'task-logs' ? filters : {},
    expiresAt,
  });
  return { url: `${deps.config.publicUrl}/exports/${kind}.csv?token=${encodeURIComponent(token)}`, expires_at: expiresAt.toISOString() };
}

type Page<R> = (after: ExportCursor | null) => Promise<(R & { cursor_at: string; id: string | number })[]>;

/** A pull stream of CSV text: the header, then one chunk per page, read only on demand. */
function csvStream<R>(header: readonly string[], page: Page<R>, line: (row: R) => string, onError: (error: unknown) => void): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: ExportCursor | null = null;
  let headerSent = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!headerSent) {
          headerSent = true;
          // a byte order mark, so spreadsheets read the UTF-8 (prompts hold any script)
          controller.enqueue(encoder.encode(`\uFEFF${csvLine(header)}`));
          return;
        }
        try {
          const rows = await page(after);
          if (rows.length > 0) {
            const last = rows[rows.length - 1];
            after = { at: last.cursor_at, id: String(last.id) };
            controller.enqueue(encoder.encode(rows.map(line).join('')));
          }
          if (rows.length < EXPORT_PAGE_ROWS) controller.close();
        } catch (error) {
          onError(error);
          controller.error(error);
        }
      },
    },
    // no read-ahead: the next page is read when the client asks for more
    { highWaterMark: 0 },
  );
}

/** GET /exports/<kind>.csv – the token's owner's rows as a CSV stream; a used, expired or unknown token is refused. */
export async function openExport(
  deps: { db: Db; log: Logger },
  kind: ExportKind,
  token: string,
): Promise<{ fileName: string; body: ReadableStream<Uint8Array> }> {
  const repo = exportRepository(deps.db);
  const grant = token ? await repo.consumeToken(hashToken(token), kind) : undefined;
  if (!grant) throw new ApiError('forbidden', 'This download link has expired or was already used. Start the export again.');
  const day = new Date().toISOString().slice(0, 10);
  const onError = (error: unknown) => deps.log.error('CSV export failed mid-stream', { kind, user_id: grant.userId, error: String(error) });
  if (kind === 'task-logs') {
    const filters = grant.filters as TaskLogFilters;
    return {
      fileName: `task-logs-${day}.csv`,
      body: csvStream(
        TASK_LOG_COLUMNS,
        (after) => repo.taskLogPage(grant.userId, filters, after, EXPORT_PAGE_ROWS),
        (r) => csvLine([r.id, r.type, r.status, r.percentage, r.created_at, r.cost, r.refund, r.prompt, r.message]),
        onError,
      ),
    };
  }
  return {
    fileName: `credit-history-${day}.csv`,
    body: csvStream(
      CREDIT_HISTORY_COLUMNS,
      (after) => repo.creditHistoryPage(grant.userId, after, EXPORT_PAGE_ROWS),
      (r) => csvLine([r.id, r.created_at, r.kind, r.delta, r.balance_after, r.task_id, r.task_type, r.invoice_number]),
      onError,
    ),
  };
}
