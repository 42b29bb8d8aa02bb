/**
 * @module Idempotency keys for the calls that create a task or start a charge: a request with
 * an `Idempotency-Key` header runs once per account and key; a retry of the same request
 * (method, path and canonical body) within 24 hours gets the first answer again, with
 * `Idempotent-Replayed: true` (same status, same body, same task id, nothing held twice).
 * Stored in PostgreSQL (public.idempotency_keys), so every API process shares them.
 *
 * - Another request with a key already used → 422 idempotency_key_reused, naming what differs.
 * - A retry while the first still runs waits for it (up to 2 s), then 409 idempotency_key_in_use
 *   with Retry-After.
 * - Only 2xx answers are kept: any other answer had no effect (a refused submit creates no task
 *   and holds nothing), so the key is freed and a retry runs again (after a top-up, say).
 * - The key is leased while the request runs, the lease renewed by its process. If the process
 *   dies after creating the task but before storing the answer, a retry after the lease
 *   (30 s) runs the request again: the one case in which a key does not prevent a second task.
 *
 * Placed after authentication (the account scopes the key) and after the route's body limit
 * (the middleware reads the body; the route's validator parses the same cached text).
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Db } from '@aim/supabase/db';
import type { AuthedEnv } from '../../context.ts';
import { ApiError } from '../../errors.ts';
import type { Logger } from '../../logger.ts';
import { idempotencyRepository } from '../../repositories/idempotency-repository.ts';
import { IDEMPOTENCY_HEADER, isValidIdempotencyKey, MAX_IDEMPOTENCY_KEY_LENGTH, REPLAYED_HEADER, requestFingerprint } from './fingerprint.ts';

export { IDEMPOTENCY_HEADER, REPLAYED_HEADER } from './fingerprint.ts';

export const INVALID_IDEMPOTENCY_KEY_MESSAGE = `Idempotency-Key must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters`;
export const IDEMPOTENCY_KEY_IN_USE_MESSAGE = 'A request with this Idempotency-Key is still in progress; retry in a second to get its answer';

const DEFAULT_LEASE_MS = 30_000;
const DEFAULT_WAIT_MS = 2_000;

export interface IdempotencyOptions {
  /** How long a retry waits for the first request before answering 409 (default 2 s). */
  waitMs?: number;
  /** The lease of a running request, renewed every third of it (default 30 s). */
  leaseMs?: number;
}

/** What the first request was, when another request reuses its key. */
export function keyReusedMessage(first: { method: string; path: string }, method: string, path: string): string {
  const firstCall = `${first.method} ${first.path}`;
  const call = `${method} ${path}`;
  return firstCall === call
    ? `This Idempotency-Key was already used for ${firstCall} with a different body; use a new key for a different request`
    : `This Idempotency-Key was already used for ${firstCall}, not ${call}; use a new key for a different request`;
}

/** The message of a route that refuses the header (uploads). */
export function idempotencyUnsupportedMessage(method: string, path: string): string {
  return `Idempotency-Key is not supported on ${method} ${path}: an upload creates no task and holds no credits; send it without the header`;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function replay(c: Context, answer: { status: number; body: string }): Response {
  // every answer kept is a 2xx JSON answer of a create or charge route
  return c.body(answer.body, answer.status as ContentfulStatusCode, { 'Content-Type': 'application/json', [REPLAYED_HEADER]: 'true' });
}

/**
 * @example
 * createRoute({ ..., middleware: [apiKeyAuth(deps, 'generate'), idempotency(deps)] as const, parameters: [idempotencyKeyParameter] })
 */
export function idempotency(deps: { db: Db; log: Logger }, options: IdempotencyOptions = {}) {
  const repo = idempotencyRepository(deps.db);
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;

  return createMiddleware<AuthedEnv>(async (c, next) => {
    const key = c.req.header(IDEMPOTENCY_HEADER);
    if (key === undefined) return next();
    if (!isValidIdempotencyKey(key)) throw new ApiError('invalid_idempotency_key', INVALID_IDEMPOTENCY_KEY_MESSAGE);
    const { method, path } = c.req;
    // cached by the request: the route's validator parses this same text
    const requestHash = requestFingerprint(method, path, await c.req.text());
    const userId = c.var.account.id;
    const token = randomUUID();

    const deadline = Date.now() + waitMs;
    for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
      const found = await repo.reserve({ userId, key, method, path, requestHash, token, leaseMs });
      if (found.acquired) break;
      if (found.requestHash !== requestHash) throw new ApiError('idempotency_key_reused', keyReusedMessage(found, method, path));
      if (!found.inFlight) return replay(c, found);
      if (Date.now() + delay > deadline) {
        c.header('Retry-After', '1');
        throw new ApiError('idempotency_key_in_use', IDEMPOTENCY_KEY_IN_USE_MESSAGE);
      }
      await sleep(delay);
    }

    const renewal = setInterval(() => {
      repo.renew(userId, key, token, leaseMs).catch((error: unknown) => deps.log.error('idempotency lease renewal failed', { error: String(error) }));
    }, leaseMs / 3);
    renewal.unref();
    try {
      await next();
    } catch (error) {
      await repo.release(userId, key, token).catch(() => {});
      throw error;
    } finally {
      clearInterval(renewal);
    }

    const { status } = c.res;
    if (status < 200 || status >= 300) {
      await repo.release(userId, key, token);
      return;
    }
    // read whole and answered anew, not clone()d: undici cancels a clone's source stream when the
    // original Response is collected, and a later c.header() re-wraps c.res (dropping it), so a
    // clone under GC pressure answered 'Body is unusable' to the client now and then
    const res = c.res;
    const body = await res.text();
    c.res = undefined;
    c.res = new Response(body, { status, statusText: res.statusText, headers: res.headers });
    const stored = await repo.complete(userId, key, token, { status, body });
    // a lease taken over by a retry (this request ran past it without renewing): both ran
    if (!stored) deps.log.error('idempotency key answered after its lease was taken over', { request_id: c.var.requestId, path });
  });
}

/**
 * For routes that cannot take the header (streamed multipart uploads: their bytes are not
 * read twice, and each send has a new multipart boundary): 400 when it is sent, rather than
 * a silent promise of at-most-once.
 */
export function refuseIdempotencyKey() {
  return createMiddleware<AuthedEnv>(async (c, next) => {
    if (c.req.header(IDEMPOTENCY_HEADER) !== undefined) {
      throw new ApiError('invalid_idempotency_key', idempotencyUnsupportedMessage(c.req.method, c.req.path));
    }
    await next();
  });
}
