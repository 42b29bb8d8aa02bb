/**
 * @module Body limits for the upload routes, which authenticate (and check the balance) from
 * the headers first and then read the body counted: a declared Content-Length over the limit
 * is answered 413 before a byte is read; a chunked body is counted as it arrives and cut at
 * the limit (its reader cancelled, nothing more pulled). A declared 413 is answered without
 * `Connection: close`: @hono/node-server then drains what the client still sends (at most
 * 64 MB or 500 ms, discarded at the socket, never parsed) so a client that writes its whole
 * body before reading (Python's http.client) reads the 413 instead of a broken pipe.
 */
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { AppEnv, AuthedEnv } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import { policyOf, type UploadDeps } from '../../services/uploads/store-upload.ts';
import { assertUploadQuota } from '../../services/uploads/upload-quota.ts';

interface LimitOptions {
  maxSize: number;
  tooLarge: () => ApiError;
}

/** Whether the request declares a length over `maxSize` (without Transfer-Encoding, which overrides it). */
function declaresTooMuch(headers: Headers, maxSize: number): boolean {
  const declared = headers.get('content-length');
  return declared !== null && !headers.has('transfer-encoding') && Number(declared) > maxSize;
}

/**
 * The body's chunks, counted: throws `tooLarge()` as soon as more than `maxSize` bytes arrived
 * (cancelling the body, so no more is read). Leaving the loop early cancels it too.
 */
export async function* limitedChunks(body: ReadableStream<Uint8Array> | null, options: LimitOptions): AsyncGenerator<Uint8Array> {
  if (!body) return;
  const reader = body.getReader();
  let size = 0;
  let done = false;
  try {
    for (;;) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        return;
      }
      size += next.value.length;
      if (size > options.maxSize) throw options.tooLarge();
      yield next.value;
    }
  } finally {
    if (!done) reader.cancel().catch(() => {});
  }
}

/** 413 for a declared Content-Length over `maxSize`, before anything is read; the handler counts the rest (limitedChunks). */
export function declaredLengthLimit(options: LimitOptions) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (declaresTooMuch(c.req.raw.headers, options.maxSize)) return declaredTooLarge(c, options);
    await next();
  });
}

/** The 413 of a declared length, answered without closing (see the module's note). */
function declaredTooLarge(c: Context, options: LimitOptions): Response {
  const error = options.tooLarge();
  return c.json(error.toBody(), 413);
}

/**
 * For JSON upload routes: 413 for a declared length over `maxSize` before reading, else the
 * body buffered while counted and cut at `maxSize` (at most the limit is ever held).
 */
export function countedBodyLimit(options: LimitOptions) {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!c.req.raw.body) return next();
    if (declaresTooMuch(c.req.raw.headers, options.maxSize)) return declaredTooLarge(c, options);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of limitedChunks(c.req.raw.body, options)) {
      chunks.push(chunk);
      size += chunk.length;
    }
    c.req.raw = new Request(c.req.raw, { body: Buffer.concat(chunks, size) });
    await next();
  });
}

/**
 * After authentication, before the body: a free account already at its daily upload quota
 * (or without room for the file the Content-Length announces, less `framing` bytes) is
 * refused at once (services/uploads/upload-quota.ts).
 */
export function uploadQuotaGate(deps: UploadDeps, framing: number) {
  return createMiddleware<AuthedEnv>(async (c, next) => {
    const declared = Number(c.req.header('content-length') ?? 0);
    const fileBytes = Number.isFinite(declared) && !c.req.raw.headers.has('transfer-encoding') ? Math.max(0, declared - framing) : 0;
    await assertUploadQuota(deps.db, policyOf(deps), c.var.account.id, fileBytes);
    await next();
  });
}

/**
 * How many upload bodies one API process holds at once: an upload's file (up to 10 MB, 50 MB
 * of audio, 128 MB of AI photos) is kept in memory while it is checked and stored, so without
 * a cap a few accounts sending the largest bodies in parallel could take the process's memory.
 * Each upload reserves its limit (or its declared length, when smaller) before a byte is read;
 * past `budgetBytes` in all, or `perAccount` uploads of one account, the request is answered
 * 429 at once (the client retries; nothing was read).
 */
export interface UploadMemoryBudget {
  budgetBytes: number;
  perAccount: number;
  /** Reserves `bytes` for `accountId`: a release function, or which limit left no room. */
  reserve(accountId: string, bytes: number): { release: () => void } | { full: 'account' | 'server' };
  /** Bytes reserved now (tests, metrics). */
  inUse(): number;
}

const DEFAULT_UPLOAD_MEMORY = { budgetBytes: 512 * 1024 * 1024, perAccount: 2 };

export function createUploadMemoryBudget(options: { budgetBytes: number; perAccount: number } = DEFAULT_UPLOAD_MEMORY): UploadMemoryBudget {
  let used = 0;
  const perAccount = new Map<string, number>();
  return {
    ...options,
    reserve(accountId, bytes) {
      const mine = perAccount.get(accountId) ?? 0;
      // one upload always fits an idle process, whatever its size
      if (mine >= options.perAccount) return { full: 'account' };
      if (used > 0 && used + bytes > options.budgetBytes) return { full: 'server' };
      used += bytes;
      perAccount.set(accountId, mine + 1);
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        used -= bytes;
        const left = (perAccount.get(accountId) ?? 1) - 1;
        if (left > 0) perAccount.set(accountId, left);
        else perAccount.delete(accountId);
      };
      return { release };
    },
    inUse: () => used,
  };
}

/** UPLOAD_MEMORY_BUDGET_MB and UPLOAD_CONCURRENCY_PER_ACCOUNT (whole numbers ≥ 1), else the defaults; a bad value stops the start. */
export function uploadMemoryFromEnv(env: Record<string, string | undefined> = process.env): { budgetBytes: number; perAccount: number } {
  const read = (name: string, fallback: number) => {
    const raw = env[name]?.trim();
    if (!raw) return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 1) throw new Error(`${name} must be a whole number of at least 1, not "${raw}"`);
    return value;
  };
  return {
    budgetBytes: read('UPLOAD_MEMORY_BUDGET_MB', DEFAULT_UPLOAD_MEMORY.budgetBytes / 1024 / 1024) * 1024 * 1024,
    perAccount: read('UPLOAD_CONCURRENCY_PER_ACCOUNT', DEFAULT_UPLOAD_MEMORY.perAccount),
  };
}

/** Where a route finds the budget: its deps' (tests, createApiApp), else the process's one (from the environment). */
export interface UploadMemoryDeps {
  uploadMemory?: UploadMemoryBudget;
}

let processBudget: UploadMemoryBudget | undefined;

export function uploadMemoryOf(deps: UploadMemoryDeps): UploadMemoryBudget {
  if (deps.uploadMemory) return deps.uploadMemory;
  processBudget ??= createUploadMemoryBudget(uploadMemoryFromEnv());
  return processBudget;
}

const RETRY_UPLOAD_SECONDS = 2;

/**
 * After authentication, before the body: reserves the upload's memory in `budget` for the
 * whole request (released when the handler is done, whatever happened), or answers 429
 * too_many_requests with Retry-After.
 */
export function uploadMemorySlot(budget: UploadMemoryBudget, maxSize: number) {
  return createMiddleware<AuthedEnv>(async (c, next) => {
    const declared = Number(c.req.header('content-length'));
    const bytes = Number.isFinite(declared) && declared > 0 && !c.req.raw.headers.has('transfer-encoding') ? Math.min(declared, maxSize) : maxSize;
    const slot = budget.reserve(c.var.account.id, bytes);
    if ('full' in slot) {
      c.header('Retry-After', String(RETRY_UPLOAD_SECONDS));
      throw new ApiError(
        'too_many_requests',
        slot.full === 'account'
          ? `Too many uploads at once: at most ${budget.perAccount} per account. Retry in ${RETRY_UPLOAD_SECONDS} s.`
          : `This server is receiving too many uploads. Retry in ${RETRY_UPLOAD_SECONDS} s.`,
      );
    }
    try {
      await next();
    } finally {
      slot.release();
    }
  });
}
