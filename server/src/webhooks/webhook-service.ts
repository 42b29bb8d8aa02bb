/**
 * @module Outgoing webhooks: `enqueue` records an event to deliver (inside the caller's
 * transaction when given one), a dispatcher (`start`/`stop`, or `dispatchDue` once) sends
 * due deliveries, retries them with backoff until a 2xx, and records every attempt.
 * Any number of dispatchers (API instances, workers) may run against one database.
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
  /** Deliveries claimed and sent in parallel per round. */
  batchSize?: number;
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
  /** Claims and sends everything due now, until nothing is due; returns how many were sent. */
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
  const batchSize = opts.batchSize ?? 10;
  const userAgent = opts.userAgent ?? DEFAULT_USER_AGENT;
  const resolveHost = opts.resolveHost ?? resolveWithDns;

  let started = false;
  let timer: NodeJS.Timeout | undefined;
  let round: Promise<void> | undefined;

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
        await repo.finishClaim(d.id, token, outcome);
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

  async function dispatchDue(): Promise<number> {
    let sent = 0;
    for (;;) {
      const now = clock();
      const token = randomUUID();
      const claimed = await deliveryRepository(db).claimDue({
        now,
        leaseUntil: new Date(now.getTime() + timeoutMs + LEASE_MARGIN_MS),
        limit: batchSize,
        token,
      });
      if (claimed.length === 0) return sent;
      const results = await Promise.allSettled(claimed.map((d) => deliver(d, token)));
      for (const [i, r] of results.entries()) {
        // The claim's lease runs out and the delivery comes due again.
        if (r.status === 'rejected') log.error('webhook delivery error', { delivery_id: claimed[i].id, error: String(r.reason) });
      }
      sent += claimed.length;
    }
  }

  function schedule(delayMs: number) {
    clearTimeout(timer);
    // a round serves every task, not the request or job whose event woke it
    timer = setTimeout(detachLogContext(tick), delayMs);
    timer.unref();
  }

  function tick() {
    timer = undefined;
    round = dispatchDue()
      .then(
        () => undefined,
        (err: unknown) => log.error('webhook dispatch error', { error: String(err) }),
      )
      .finally(() => {
        round = undefined;
        if (started) schedule(pollIntervalMs);
      });
  }

  function wake() {
    if (started && !round) schedule(0);
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
