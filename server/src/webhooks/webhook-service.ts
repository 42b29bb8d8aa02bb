/**
 * @module Outgoing webhooks: `enqueue` records an event to deliver (inside the caller's
 * transaction when given one), a dispatcher (`start`/`stop`, or `dispatchDue` once) sends
 * due deliveries, retries them with backoff until a 2xx, and records every attempt.
 * Any number of dispatchers (API instances, workers) may run against one database.
 *
 * Fair across accounts (issue 21): each delivery is sent on its own (a dispatcher keeps up to
 * `concurrency` sends in flight and claims more as slots free up, so none waits for a slow
 * neighbour), an account has at most `accountConcurrency` deliveries leased cluster-wide, and
 * an endpoint (account + url) that keeps failing is paused by a circuit breaker.
 */
import { randomUUID } from 'node:crypto';
import { type Db, type Queryable, retryOnConnectionLoss } from '@aim/supabase/db';
import { detachLogContext, type Logger } from '../logger.ts';
import { recordWebhookAttempt } from '../observability/metrics.ts';
import { deliveryRepository, type AttemptRow, type ClaimedDelivery, type DeliveryOutcome, type DeliveryRow } from './delivery-repository.ts';
import { type DeliveryInput, recordDelivery } from './record-delivery.ts';
import { nextRetryDelayMs } from './retry-schedule.ts';
import { sendWebhook, MAX_SNIPPET_CHARS } from './send-webhook.ts';
import { accountSecrets, signingKeys } from './signing-secret.ts';
import { signWebhook } from './signature.ts';
import { resolveWithDns, type ResolveHost } from './target-guard.ts';

/** How long a receiver has to answer one attempt. */
export const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_USER_AGENT = 'AIM-Webhooks/1.0';
// The lease outlives the send timeout, so a live dispatcher normally records its outcome before
// another may take the delivery over; a crashed one's delivery comes due again after it, and
// the task's later deliveries wait behind it, so the margin is kept short (timeout + 15 s).
// A dispatcher slower than that (its database away for longer) loses the claim: the delivery
// is sent again with the same webhook-id, which receivers use to drop duplicates.
const LEASE_MARGIN_MS = 15_000;
/** Sends in flight per dispatcher (WEBHOOK_CONCURRENCY). */
const DEFAULT_CONCURRENCY = 32;
/** Deliveries of one account in flight across all dispatchers (WEBHOOK_ACCOUNT_CONCURRENCY). */
const DEFAULT_ACCOUNT_CONCURRENCY = 4;
/** Failed attempts in a row that pause an endpoint, and its first and longest cool-down. */
export const DEFAULT_BREAKER = { threshold: 5, cooldownMs: 60_000, maxCooldownMs: 3_600_000 };

const envInt = (name: string, fallback: number) => {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};

export interface WebhookServiceOptions {
  db: Db;
  log: Logger;
  /**
   * Allow targets on loopback/private/link-local addresses. Only embedded mode (one machine,
   * a developer's own receiver on localhost) turns this on; production keeps it off.
   */
  allowPrivateTargets: boolean;
  /** The clock for scheduling and signature timestamps (tests move it instead of sleeping). */
  now?: () => Date;
  /** Host name → addresses (dns.lookup, all: true); tests inject DNS answers. */
  resolveHost?: ResolveHost;
  /** Jitter source, [0, 1). */
  random?: () => number;
  timeoutMs?: number;
  pollIntervalMs?: number;
  /** Sends in flight at once in this dispatcher (default WEBHOOK_CONCURRENCY, else 32). */
  concurrency?: number;
  /** @deprecated the old name of `concurrency`. */
  batchSize?: number;
  /** An account's deliveries in flight across every dispatcher (default WEBHOOK_ACCOUNT_CONCURRENCY, else 4). */
  accountConcurrency?: number;
  /** The per-endpoint circuit breaker: failures in a row that pause it, first and longest cool-down. */
  breaker?: Partial<typeof DEFAULT_BREAKER>;
  userAgent?: string;
}

interface DeliveryWithAttempts extends DeliveryRow {
  attempts: AttemptRow[];
}

export interface WebhookService {
  /**
   * Records an event to deliver; returns its id (also the `webhook-id` header), or null when
   * dropped: any event after the task's final event for the same url (one final event per
   * task and url). A newer event supersedes the waiting progress events of the same task
   * and url. Pass `tx` to enqueue in the transaction that changes the task, so a committed
   * change always gets its webhook.
   */
  enqueue(input: DeliveryInput, opts?: { tx?: Queryable }): Promise<string | null>;
  /** Dispatches soon: a delivery was recorded outside `enqueue` (a task settlement) in this process. */
  wake(): void;
  /**
   * Claims and sends everything due now, until nothing is due and nothing is in flight;
   * returns how many were sent. Up to `concurrency` sends run at once, each on its own.
   */
  dispatchDue(): Promise<number>;
  /** Starts polling for due deliveries every pollIntervalMs (and soon after each enqueue). */
  start(): void;
  /** Stops polling and waits for the round in progress. */
  stop(): Promise<void>;
  /** The account's `whsec_…` signing secret (made on first use), for the owner to see. */
  getSigningSecret(userId: string): Promise<string>;
  /** A task's deliveries for its owner, oldest first, each with its attempts. */
  listDeliveries(userId: string, taskId: string): Promise<DeliveryWithAttempts[]>;
}

const clip = (s: string | undefined) => (s === undefined ? null : s.slice(0, MAX_SNIPPET_CHARS));

export function createWebhookService(opts: WebhookServiceOptions): WebhookService {
  const { db, log } = opts;
  const clock = opts.now ?? (() => new Date());
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pollIntervalMs = opts.pollIntervalMs ?? 1000;
  const concurrency = opts.concurrency ?? opts.batchSize ?? envInt('WEBHOOK_CONCURRENCY', DEFAULT_CONCURRENCY);
  const accountConcurrency = opts.accountConcurrency ?? envInt('WEBHOOK_ACCOUNT_CONCURRENCY', DEFAULT_ACCOUNT_CONCURRENCY);
  const breaker = { ...DEFAULT_BREAKER, ...opts.breaker };
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  const resolveHost = opts.resolveHost ?? resolveWithDns;

  let started = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | undefined;
  // resolves the wait of a round in progress: something new may be due
  let nudge: (() => void) | undefined;
  // wake() came while no round was waiting: claim again before waiting
  let woken = false;

  async function enqueue(input: DeliveryInput, o: { tx?: Queryable } = {}) {
    const id = o.tx ? await recordDelivery(o.tx, input, clock()) : await db.transaction((tx) => recordDelivery(tx, input, clock()));
    if (id) wake();
    return id;
  }

  async function getSigningSecret(userId: string) {
    return (await accountSecrets(db, userId, clock())).secret;
  }

  async function deliver(d: ClaimedDelivery, token: string): Promise<void> {
    const body = JSON.stringify(d.payload);
    const sentAt = clock();
    // The account secret, and during a rotation's overlap the one it replaced (both signatures).
    const signingSecrets = d.secret ? [d.secret] : signingKeys(await retryOnConnectionLoss(() => accountSecrets(db, d.user_id, sentAt)));
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': userAgent,
      'x-webhook-event': d.event,
      ...signWebhook(signingSecrets, d.id, Math.floor(sentAt.getTime() / 1000), body),
    };
    if (d.secret) headers['x-webhook-secret'] = d.secret;

    const result = await sendWebhook(d.url, body, headers, {
      timeoutMs,
      allowPrivateTargets: opts.allowPrivateTargets,
      resolveHost,
    });

    const finishedAt = clock();
    let outcome: DeliveryOutcome;
    const last = { lastStatusCode: result.statusCode ?? null, lastError: clip(result.error) };
    if (result.outcome === 'delivered') {
      outcome = { status: 'delivered', nextAttemptAt: null, deliveredAt: finishedAt, ...last };
    } else if (result.outcome === 'refused') {
      outcome = { status: 'refused', nextAttemptAt: null, deliveredAt: null, ...last };
    } else {
      const delay = nextRetryDelayMs(d.attempt_count, opts.random);
      outcome =
        delay === null
          ? { status: 'failed', nextAttemptAt: null, deliveredAt: null, ...last }
          : { status: 'pending', nextAttemptAt: new Date(finishedAt.getTime() + delay), deliveredAt: null, ...last };
    }

    // through a database restart: otherwise the claim holds this task's later deliveries for its whole lease
    await retryOnConnectionLoss(() =>
      db.transaction(async (tx) => {
        const repo = deliveryRepository(tx);
        await repo.recordAttempt({
          deliveryId: d.id,
          userId: d.user_id,
          attempt: d.attempt_count,
          statusCode: result.statusCode ?? null,
          latencyMs: result.latencyMs,
          responseSnippet: clip(result.snippet),
          error: clip(result.error),
          at: finishedAt,
        });
        if (await repo.finishClaim(d.id, token, outcome)) {
          if (result.outcome === 'delivered') await repo.endpointSucceeded(d.user_id, d.url, finishedAt);
          else if (result.outcome === 'retry') {
            const pausedUntil = await repo.endpointFailed(d.user_id, d.url, clip(result.error), finishedAt, breaker);
            if (pausedUntil) log.info('webhook endpoint paused', { delivery_id: d.id, user_id: d.user_id, paused_until: new Date(pausedUntil).toISOString() });
          }
        }
      }),
    );
    // No URL in the log: customers put tokens in query strings.
    recordWebhookAttempt(d.event, outcome.status);
    log.info('webhook attempt', {
      delivery_id: d.id,
      task_id: d.task_id,
      request_id: d.request_id,
      event: d.event,
      attempt: d.attempt_count,
      status: outcome.status,
      status_code: result.statusCode,
      ms: result.latencyMs,
      error: result.error,
    });
  }

  async function claim(limit: number): Promise<{ claimed: ClaimedDelivery[]; token: string }> {
    const now = clock();
    const token = randomUUID();
    const repo = deliveryRepository(db);
    let claimed = await repo.claimDue({
      now,
      leaseUntil: new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS),
      limit,
      token,
      accountLimit: accountConcurrency,
    });
    if (claimed.length > 0) {
      const released = new Set(await repo.releaseOverLimit(token, now, accountConcurrency));
      if (released.size > 0) claimed = claimed.filter((d) => !released.has(d.id));
    }
    return { claimed, token };
  }

  /** Sends due deliveries, each on its own, keeping up to `concurrency` in flight while `more()`. */
  async function pump(more: () => boolean): Promise<number> {
    let sent = 0;
    const inFlight = new Set<Promise<void>>();
    let dry = false; // the last claim found nothing more to take
    for (;;) {
      if (more() && !dry && inFlight.size < concurrency) {
        woken = false; // this claim sees everything recorded so far
        const { claimed, token } = await claim(concurrency - inFlight.size);
        if (claimed.length === 0) dry = true;
        for (const d of claimed) {
          const p: Promise<void> = deliver(d, token)
            // The claim's lease runs out and the delivery comes due again.
            .catch((err: unknown) => log.error('webhook delivery error', { delivery_id: d.id, error: String(err) }))
            .finally(() => inFlight.delete(p));
          inFlight.add(p);
        }
        sent += claimed.length;
        continue;
      }
      if (inFlight.size === 0) return sent;
      if (woken && more() && inFlight.size < concurrency) {
        dry = false;
        continue;
      }
      // A send finished (the task's next event, or the account's next, may be claimable), an
      // enqueue woke us, or a poll interval passed (another process's deliveries came due).
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        ...inFlight,
        new Promise<void>((r) => {
          nudge = r;
          timer = setTimeout(r, pollIntervalMs);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
      nudge = undefined;
      dry = false;
    }
  }

  function dispatchDue(): Promise<number> {
    return pump(() => true);
  }

  function schedule(delayMs: number) {
    clearTimeout(timer);
    // a round serves every task, not the request or job whose event woke it
    timer = setTimeout(detachLogContext(tick), delayMs);
    timer.unref();
  }

  function tick() {
    timer = undefined;
    round = pump(() => started)
      .then(
        () => undefined,
        (err: unknown) => log.error('webhook dispatch error', { error: String(err) }),
      )
      .finally(() => {
        round = undefined;
        if (started) schedule(woken ? 0 : pollIntervalMs);
      });
  }

  function wake() {
    if (!started) return;
    woken = true;
    if (round) nudge?.();
    else schedule(0);
  }

  return {
    enqueue,
    wake,
    dispatchDue,
    start() {
      if (started) return;
      started = true;
      schedule(0);
    },
    async stop() {
      started = false;
      nudge?.();
      clearTimeout(timer);
      timer = undefined;
      await round;
    },
    getSigningSecret,
    async listDeliveries(userId, taskId) {
      const repo = deliveryRepository(db);
      const deliveries = await repo.listForTask(userId, taskId);
      const attempts = await repo.listAttempts(
        userId,
        deliveries.map((d) => d.id),
      );
      return deliveries.map((d) => ({ ...d, attempts: attempts.filter((a) => a.delivery_id === d.id) }));
    },
  };
}
