/**
 * @module The only SQL about webhooks: public.webhook_deliveries, webhook_attempts and the
 * two secret tables. Parameters only; times come from the caller's clock so tests can move
 * time without sleeping.
 */
import type { Queryable } from '@aim/supabase/db';

export type WebhookEvent = 'task.progress' | 'task.completed' | 'task.failed';
/** A delivery's event: a task's, or a test event (no task) sent from the console. */
type DeliveryEvent = WebhookEvent | 'webhook.test';
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'refused', 'superseded'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface NewDelivery {
  userId: string;
  taskId: string;
  url: string;
  event: WebhookEvent;
  payload: unknown;
  now: Date;
}

/** A delivery a dispatcher holds: everything needed to send it once. */
export interface ClaimedDelivery {
  id: string;
  user_id: string;
  /** null for a test event. */
  task_id: string | null;
  url: string;
  event: DeliveryEvent;
  payload: unknown;
  /** The attempt being made (1-based). */
  attempt_count: number;
  /** The per-request secret, when the request gave one. */
  secret: string | null;
  /** The id of the request that submitted the task (task_jobs.request_id), for the log line. */
  request_id: string | null;
}

export interface AttemptRecord {
  deliveryId: string;
  userId: string;
  attempt: number;
  statusCode: number | null;
  latencyMs: number;
  responseSnippet: string | null;
  error: string | null;
  at: Date;
}

export interface DeliveryOutcome {
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
}

export interface DeliveryRow {
  id: string;
  user_id: string;
  task_id: string | null;
  url: string;
  event: DeliveryEvent;
  payload: unknown;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
}

export interface SigningSecrets {
  secret: string;
  /** When the current secret was made (first use or the last rotation). */
  created_at: Date;
  /** The secret a rotation replaced, while it still signs (null otherwise). */
  previous_secret: string | null;
  previous_expires_at: Date | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempt: number;
  status_code: number | null;
  latency_ms: number;
  response_snippet: string | null;
  error: string | null;
  created_at: Date;
}

export function deliveryRepository(q: Queryable) {
  return {
    /** Serialises enqueues for one task and url until the transaction ends. */
    async lockTarget(taskId: string, url: string): Promise<void> {
      await q.query("select pg_advisory_xact_lock(hashtextextended($1 || ' ' || $2, 0))", [taskId, url]);
    },

    async hasFinalEvent(taskId: string, url: string): Promise<boolean> {
      const { rows } = await q.query("select 1 from public.webhook_deliveries where task_id = $1 and url = $2 and event <> 'task.progress' limit 1", [
        taskId,
        url,
      ]);
      return rows.length > 0;
    },

    /**
     * Marks the waiting progress events of a task and url as superseded. One that a dispatcher is
     * sending right now (claimed, lease not over) is left to finish.
     */
    async supersedeProgress(taskId: string, url: string, now: Date): Promise<number> {
      const { rowCount } = await q.query(
        `update public.webhook_deliveries set status = 'superseded', claim_token = null
          where task_id = $1 and url = $2 and event = 'task.progress' and status = 'pending'
            and (claim_token is null or next_attempt_at <= $3)`,
        [taskId, url, now],
      );
      return rowCount;
    },

    /**
     * Adds a delivery; null when it is a task's second final event for the url (unique
     * index webhook_deliveries_final_once: one task.completed/task.failed per task and url).
     */
    async insert(d: NewDelivery): Promise<string | null> {
      const { rows } = await q.query<{ id: string }>(
        `insert into public.webhook_deliveries (user_id, task_id, url, event, payload, next_attempt_at, created_at)
         values ($1, $2, $3, $4, $5::jsonb, $6, $6)
         on conflict (task_id, url) where event <> 'task.progress' do nothing
         returning id`,
        [d.userId, d.taskId, d.url, d.event, JSON.stringify(d.payload), d.now],
      );
      return rows[0]?.id ?? null;
    },

    async insertSecret(deliveryId: string, secret: string): Promise<void> {
      await q.query('insert into public.webhook_delivery_secrets (delivery_id, secret) values ($1, $2)', [deliveryId, secret]);
    },

    /**
     * Claims up to `limit` due deliveries for one dispatcher: counts the attempt and moves
     * next_attempt_at to the end of the lease, so no other dispatcher takes them meanwhile
     * and a crashed one's work comes due again. SKIP LOCKED lets dispatchers claim side by
     * side; only the oldest pending event of each task and url is eligible, so a target
     * receives one task's events in order.
     */
    async claimDue(opts: { now: Date; leaseUntil: Date; limit: number; token: string }): Promise<ClaimedDelivery[]> {
      const { rows } = await q.query<ClaimedDelivery>(
        `with due as (
           select d.id from public.webhook_deliveries d
            where d.status = 'pending' and d.next_attempt_at <= $1
              and not exists (
                select 1 from public.webhook_deliveries e
                 where e.task_id = d.task_id and e.url = d.url and e.status = 'pending' and e.seq < d.seq)
            order by d.next_attempt_at, d.seq
            limit $2
            for update of d skip locked
         )
         update public.webhook_deliveries d
            set claim_token = $3, attempt_count = d.attempt_count + 1, next_attempt_at = $4
           from due
          where d.id = due.id
         returning d.id, d.user_id, d.task_id, d.url, d.event, d.payload, d.attempt_count,
           (select s.secret from public.webhook_delivery_secrets s where s.delivery_id = d.id) as secret,
           (select j.request_id from public.task_jobs j where j.task_id = d.task_id) as request_id`,
        [opts.now, opts.limit, opts.token, opts.leaseUntil],
      );
      return rows;
    },

    async recordAttempt(a: AttemptRecord): Promise<void> {
      await q.query(
        `insert into public.webhook_attempts
           (delivery_id, user_id, attempt, status_code, latency_ms, response_snippet, error, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [a.deliveryId, a.userId, a.attempt, a.statusCode, a.latencyMs, a.responseSnippet, a.error, a.at],
      );
    },

    /** Applies an attempt's outcome, unless the claim was lost (superseded, or the lease ran out). */
    async finishClaim(id: string, token: string, o: DeliveryOutcome): Promise<boolean> {
      const { rowCount } = await q.query(
        `update public.webhook_deliveries
            set status = $3, next_attempt_at = coalesce($4, next_attempt_at), claim_token = null,
                last_status_code = $5, last_error = $6, delivered_at = $7
          where id = $1 and claim_token = $2 and status = 'pending'`,
        [id, token, o.status, o.nextAttemptAt, o.lastStatusCode, o.lastError, o.deliveredAt],
      );
      return rowCount === 1;
    },

    /**
     * The account's signing secrets at `now`, storing `candidate` when it has none yet: the
     * current one, and the one a rotation replaced while its overlap lasts (cleared once over).
     */
    async getOrCreateSigningSecrets(userId: string, candidate: string, now: Date): Promise<SigningSecrets> {
      await q.query('insert into public.webhook_signing_secrets (user_id, secret, created_at) values ($1, $2, $3) on conflict (user_id) do nothing', [
        userId,
        candidate,
        now,
      ]);
      await q.query(
        `update public.webhook_signing_secrets set previous_secret = null, previous_expires_at = null
          where user_id = $1 and previous_expires_at <= $2`,
        [userId, now],
      );
      // Separate statements: they must see a row a concurrent first use committed meanwhile.
      const { rows } = await q.query<SigningSecrets>(
        `select secret, created_at,
                case when previous_expires_at > $2 then previous_secret end as previous_secret,
                case when previous_expires_at > $2 then previous_expires_at end as previous_expires_at
           from public.webhook_signing_secrets where user_id = $1`,
        [userId, now],
      );
      return rows[0];
    },

    /**
     * Makes `secret` the account's signing secret; the current one keeps signing beside it
     * until `previousUntil` (a previous one still in its overlap is dropped).
     */
    async rotateSigningSecret(userId: string, secret: string, now: Date, previousUntil: Date): Promise<SigningSecrets> {
      const { rows } = await q.query<SigningSecrets>(
        `insert into public.webhook_signing_secrets as s (user_id, secret, created_at, rotated_at) values ($1, $2, $3, $3)
         on conflict (user_id) do update
           set previous_secret = s.secret, previous_expires_at = $4, secret = excluded.secret, created_at = $3, rotated_at = $3
         returning secret, created_at, previous_secret, previous_expires_at`,
        [userId, secret, now, previousUntil],
      );
      return rows[0];
    },

    /** A test event (no task) to the account's webhook URL, due now. */
    async insertTestEvent(userId: string, url: string, payload: unknown, now: Date): Promise<string> {
      const { rows } = await q.query<{ id: string }>(
        `insert into public.webhook_deliveries (user_id, task_id, url, event, payload, next_attempt_at, created_at)
         values ($1, null, $2, 'webhook.test', $3::jsonb, $4, $4) returning id`,
        [userId, url, JSON.stringify(payload), now],
      );
      return rows[0].id;
    },

    /**
     * The owner's newest deliveries (of one status when given), newest first; `before` pages
     * on (created_at, id).
     */
    async listRecent(userId: string, opts: { status?: DeliveryStatus; limit: number; before?: { createdAt: Date; id: string } }): Promise<DeliveryRow[]> {
      const { rows } = await q.query<DeliveryRow>(
        `select id, user_id, task_id, url, event, payload, status, attempt_count, next_attempt_at,
                last_status_code, last_error, delivered_at, created_at
           from public.webhook_deliveries
          where user_id = $1 and ($2::text is null or status = $2)
            and ($4::timestamptz is null or (created_at, id) < ($4, $5::uuid))
          order by created_at desc, id desc
          limit $3`,
        [userId, opts.status ?? null, opts.limit, opts.before?.createdAt ?? null, opts.before?.id ?? null],
      );
      return rows;
    },

    /**
     * Sends an owner's finished (or waiting) delivery again now, with the same webhook-id: back to
     * pending and due at once. Answers false when it is not the owner's, is being sent right now
     * (claimed, lease not over) or was superseded.
     */
    async resend(userId: string, id: string, now: Date): Promise<boolean> {
      const { rowCount } = await q.query(
        `update public.webhook_deliveries
            set status = 'pending', next_attempt_at = $3, claim_token = null
          where id = $2 and user_id = $1 and status <> 'superseded'
            and (status <> 'pending' or claim_token is null or next_attempt_at <= $3)`,
        [userId, id, now],
      );
      return rowCount === 1;
    },

    async listForTask(userId: string, taskId: string): Promise<DeliveryRow[]> {
      const { rows } = await q.query<DeliveryRow>(
        `select id, user_id, task_id, url, event, payload, status, attempt_count, next_attempt_at,
                last_status_code, last_error, delivered_at, created_at
           from public.webhook_deliveries where user_id = $1 and task_id = $2 order by seq`,
        [userId, taskId],
      );
      return rows;
    },

    async listAttempts(userId: string, deliveryIds: string[]): Promise<AttemptRow[]> {
      if (deliveryIds.length === 0) return [];
      const { rows } = await q.query<AttemptRow>(
        `select delivery_id, attempt, status_code, latency_ms, response_snippet, error, created_at
           from public.webhook_attempts where user_id = $1 and delivery_id = any($2::uuid[]) order by id`,
        [userId, deliveryIds],
      );
      return rows;
    },
  };
}
