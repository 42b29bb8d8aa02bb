/**
 * @module What the API Keys screen's webhook console reads and does, for the signed-in owner
 * only (every query is keyed by the caller's user id): the account signing secret (reveal,
 * rotate), the recent deliveries with every attempt, Resend and Send test event, and the
 * endpoints a circuit breaker paused (Resume). Resend, Resume and the test event write due rows;
 * the dispatchers (polling every second) send them. Test events are limited per account
 * (TEST_EVENT_LIMITS): a console button must not become a way to flood a receiver.
 */
import type { Db, Queryable } from '@aim/supabase/db';
import { ApiError } from '../errors.ts';
import { userRepository } from '../repositories/user-repository.ts';
import { deliveryRepository, type AttemptRow, type DeliveryRow, type DeliveryStatus, type EndpointRow, type SigningSecrets } from './delivery-repository.ts';
import { accountSecrets, rotateAccountSecret } from './signing-secret.ts';

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export interface SigningSecretView {
  /** The current `whsec_…` secret. */
  secret: string;
  created_at: string;
  /** The replaced secret while it still signs beside the current one (null otherwise). */
  previous_secret: string | null;
  previous_expires_at: string | null;
}

const secretView = (s: SigningSecrets): SigningSecretView => ({
  secret: s.secret,
  created_at: iso(s.created_at) as string,
  previous_secret: s.previous_secret,
  previous_expires_at: iso(s.previous_expires_at),
});

export async function readSigningSecret(q: Queryable, userId: string, now: Date): Promise<SigningSecretView> {
  return secretView(await accountSecrets(q, userId, now));
}

export async function rotateSigningSecret(q: Queryable, userId: string, now: Date): Promise<SigningSecretView> {
  return secretView(await rotateAccountSecret(q, userId, now));
}

interface AttemptView {
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  /** The first 500 characters of the receiver's answer. */
  response_excerpt: string | null;
  error: string | null;
  at: string;
}

export interface DeliveryView {
  id: string;
  event: DeliveryRow['event'];
  task_id: string | null;
  url: string;
  status: DeliveryStatus;
  attempt_count: number;
  last_status_code: number | null;
  last_error: string | null;
  /** The latest attempt's latency. */
  latency_ms: number | null;
  /** When the next attempt is due (pending only). */
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  payload: unknown;
  attempts: AttemptView[];
}

/** An endpoint (account + url) the circuit breaker paused: its pending deliveries wait. */
export interface PausedEndpointView {
  url: string;
  /** Failed attempts in a row (timeouts, connection errors, non-2xx) that paused it. */
  consecutive_failures: number;
  /** When deliveries resume on their own; Resume does it now. */
  paused_until: string;
  last_error: string | null;
  /** For people: "Paused after 5 failures in a row; resumes at …". */
  reason: string;
}

const endpointView = (e: EndpointRow): PausedEndpointView => {
  const until = iso(e.paused_until) as string;
  return {
    url: e.url,
    consecutive_failures: e.consecutive_failures,
    paused_until: until,
    last_error: e.last_error,
    reason: `Paused after ${e.consecutive_failures} failures in a row; resumes at ${until}`,
  };
};

function deliveryView(d: DeliveryRow, attempts: AttemptRow[], pausedUntil?: Date | null): DeliveryView {
  const own = attempts.filter((a) => a.delivery_id === d.id);
  // a paused endpoint's delivery waits for the pause's end at least
  const due = pausedUntil && new Date(pausedUntil) > new Date(d.next_attempt_at) ? pausedUntil : d.next_attempt_at;
  return {
    id: d.id,
    event: d.event,
    task_id: d.task_id,
    url: d.url,
    status: d.status,
    attempt_count: d.attempt_count,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    latency_ms: own.at(-1)?.latency_ms ?? null,
    next_attempt_at: d.status === 'pending' ? iso(due) : null,
    delivered_at: iso(d.delivered_at),
    created_at: iso(d.created_at) as string,
    payload: d.payload,
    attempts: own.map((a) => ({
      attempt: a.attempt,
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      response_excerpt: a.response_snippet,
      error: a.error,
      at: iso(a.created_at) as string,
    })),
  };
}

/**
 * The owner's newest deliveries, each with its attempts, and the endpoints paused right now;
 * `before` is the last one's id of the page before.
 */
export async function listRecentDeliveries(
  q: Queryable,
  userId: string,
  opts: { status?: DeliveryStatus; limit: number; before?: string; now?: Date },
): Promise<{ deliveries: DeliveryView[]; next_before: string | null; paused_endpoints: PausedEndpointView[] }> {
  const repo = deliveryRepository(q);
  let before: { createdAt: Date; id: string } | undefined;
  if (opts.before) {
    const { rows } = await q.query<{ created_at: Date }>('select created_at from public.webhook_deliveries where id = $1 and user_id = $2', [
      opts.before,
      userId,
    ]);
    if (!rows[0]) throw new ApiError('bad_request', 'Unknown delivery in before');
    before = { createdAt: rows[0].created_at, id: opts.before };
  }
  const rows = await repo.listRecent(userId, { status: opts.status, limit: opts.limit, before });
  const attempts = await repo.listAttempts(
    userId,
    rows.map((d) => d.id),
  );
  const paused = await repo.listPausedEndpoints(userId, opts.now ?? new Date());
  const pausedUntil = new Map(paused.map((e) => [e.url, e.paused_until]));
  const deliveries = rows.map((d) => deliveryView(d, attempts, pausedUntil.get(d.url)));
  return { deliveries, next_before: rows.length === opts.limit ? (rows.at(-1)?.id ?? null) : null, paused_endpoints: paused.map(endpointView) };
}

/** Sends one of the owner's deliveries again now (same webhook-id, the current signing secrets). */
export async function resendDelivery(q: Queryable, userId: string, id: string, now: Date): Promise<{ id: string; status: 'pending' }> {
  if (await deliveryRepository(q).resend(userId, id, now)) return { id, status: 'pending' };
  const { rows } = await q.query<{ status: DeliveryStatus }>('select status from public.webhook_deliveries where id = $1 and user_id = $2', [id, userId]);
  if (!rows[0]) throw new ApiError('not_found', 'Delivery not found');
  if (rows[0].status === 'superseded') throw new ApiError('conflict', 'A newer event of this task replaced this one; it cannot be resent');
  throw new ApiError('conflict', 'This delivery is being sent right now; try again in a moment');
}

/** The body of a test event. */
function testEventPayload(now: Date) {
  return {
    event: 'webhook.test',
    message: 'A test event from the API Keys screen. Verify its signature as you would a task event.',
    created_at: now.toISOString(),
  };
}

/** The owner's endpoints paused right now by the circuit breaker. */
export async function listPausedEndpoints(q: Queryable, userId: string, now: Date): Promise<{ paused_endpoints: PausedEndpointView[] }> {
  return { paused_endpoints: (await deliveryRepository(q).listPausedEndpoints(userId, now)).map(endpointView) };
}

/**
 * Closes the breaker of one of the owner's endpoints: its waiting deliveries are due now (a
 * failure again counts from zero, so it takes the threshold's failures to pause it again).
 */
export async function resumeEndpoint(q: Queryable, userId: string, url: string, now: Date): Promise<{ url: string; resumed: number }> {
  const resumed = await deliveryRepository(q).resumeEndpoint(userId, url, now);
  if (resumed === null) throw new ApiError('not_found', 'No deliveries of yours went to this URL');
  return { url, resumed };
}

/** Test events an account may send: per minute, and waiting (pending) at once. */
export const TEST_EVENT_LIMITS = { perMinute: 10, pending: 5 };

/**
 * A `webhook.test` delivery to the account's webhook URL, due now; 429 beyond
 * TEST_EVENT_LIMITS (counted under a per-account lock, so parallel clicks cannot pass it).
 */
export async function sendTestEvent(db: Db, userId: string, now: Date): Promise<{ id: string; url: string }> {
  return db.transaction(async (tx) => {
    const url = await userRepository(tx).findWebhookUrl(userId);
    if (!url) throw new ApiError('bad_request', 'Set a webhook URL first');
    await tx.query("select pg_advisory_xact_lock(hashtextextended('webhook.test ' || $1, 0))", [userId]);
    const repo = deliveryRepository(tx);
    const { recent, pending } = await repo.testEventCounts(userId, new Date(now.getTime() - 60_000));
    if (pending >= TEST_EVENT_LIMITS.pending) {
      throw new ApiError(
        'too_many_requests',
        `${pending} test events are still waiting to be delivered (at most ${TEST_EVENT_LIMITS.pending}); wait for them before sending another`,
      );
    }
    if (recent >= TEST_EVENT_LIMITS.perMinute) {
      throw new ApiError('too_many_requests', `At most ${TEST_EVENT_LIMITS.perMinute} test events a minute; try again in a minute`);
    }
    const id = await repo.insertTestEvent(userId, url, testEventPayload(now), now);
    return { id, url };
  });
}
