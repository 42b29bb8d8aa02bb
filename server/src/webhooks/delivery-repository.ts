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

/** An endpoint's circuit breaker (account + url). */
export interface EndpointRow {
  url: string;
  consecutive_failures: number;
  paused_until: Date | null;
  last_error: string | null;
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
     * receives one task's events in order. Fairness: an account never gets more than
     * `accountLimit` deliveries leased at once (counted cluster-wide: every dispatcher's
     * unexpired claims), and a paused endpoint's deliveries wait (no attempt counted).
     */
    async claimDue(opts: { now: Date; leaseUntil: Date; limit: number; token: string; accountLimit?: number }): Promise<ClaimedDelivery[]> {
      const { rows } = await q.query<ClaimedDelivery>(
        `with leased as materialized (
           select l.user_id, count(*) as n from public.webhook_deliveries l
            where l.status = 'pending' and l.claim_token is not null and l.next_attempt_at > $1
            group by l.user_id
         ), candidates as materialized (
           select d.id, d.user_id,
                  row_number() over (partition by d.user_id order by d.next_attempt_at, d.seq) as rn
             from public.webhook_deliveries d
            where d.status = 'pending' and d.next_attempt_at <= $1
              -- a test event has no task, so nothing to wait behind (and no per-row lookup)
              and (d.task_id is null or not exists (
                select 1 from public.webhook_deliveries e
                 where e.task_id = d.task_id and e.url = d.url and e.status = 'pending' and e.seq < d.seq))
              and not exists (
                select 1 from public.webhook_endpoints p
                 where p.user_id = d.user_id and p.url = d.url and p.paused_until > $1)
         ), picked as materialized (
           -- each account's oldest due deliveries, as many as its free slots
           select c.id from candidates c left join leased l on l.user_id = c.user_id
            where c.rn + coalesce(l.n, 0) <= $5
         ), due as (
           select d.id from public.webhook_deliveries d
            where d.id in (select id from picked)
              and d.status = 'pending' and d.next_attempt_at <= $1
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
        [opts.now, opts.limit, opts.token, opts.leaseUntil, opts.accountLimit ?? 2_147_483_647],
      );
      return rows;
    },

    /**
     * Hands back this claim's newest deliveries of any account now over `accountLimit` leased
     * deliveries (two dispatchers claiming for one account at the same moment each counted
     * the other's claims as not yet made): they come due again at once, no attempt counted.
     * Whichever claim commits last sees both, so the cap holds before anything is sent.
     */
    async releaseOverLimit(token: string, now: Date, accountLimit: number): Promise<string[]> {
      const { rows } = await q.query<{ id: string }>(
        `with mine as (
           select m.id, m.user_id, row_number() over (partition by m.user_id order by m.seq desc) as rn
             from public.webhook_deliveries m
            where m.claim_token = $1 and m.status = 'pending'
         ), leased as (
           select l.user_id, count(*) as n from public.webhook_deliveries l
            where l.status = 'pending' and l.claim_token is not null and l.next_attempt_at > $2
              and l.user_id in (select user_id from mine)
            group by l.user_id
         ), extra as (
           select mine.id from mine join leased using (user_id) where mine.rn <= leased.n - $3
         )
         update public.webhook_deliveries d
            set claim_token = null, attempt_count = d.attempt_count - 1, next_attempt_at = $2
           from extra
          where d.id = extra.id and d.claim_token = $1
         returning d.id`,
        [token, now, accountLimit],
      );
      return rows.map((r) => r.id);
    },

    /** A delivered attempt closes the endpoint's breaker. */
    async endpointSucceeded(userId: string, url: string, now: Date): Promise<void> {
      await q.query(
        `update public.webhook_endpoints set consecutive_failures = 0, pauses = 0, paused_until = null, last_error = null, updated_at = $3
          where user_id = $1 and url = $2 and (consecutive_failures > 0 or paused_until is not null)`,
        [userId, url, now],
      );
    },

    /**
     * Counts a failed attempt against the endpoint; from the `threshold`-th in a row (and the
     * endpoint not paused right now) it is paused for base * 2^pauses, at most `maxCooldownMs`.
     * Answers when the pause ends, if the endpoint is paused now.
     */
    async endpointFailed(
      userId: string,
      url: string,
      error: string | null,
      now: Date,
      breaker: { threshold: number; cooldownMs: number; maxCooldownMs: number },
    ): Promise<Date | null> {
      const { rows } = await q.query<{ paused_until: Date | null }>(
        `insert into public.webhook_endpoints as e (user_id, url, consecutive_failures, last_error, updated_at)
         values ($1, $2, 1, $3, $4)
         on conflict (user_id, url) do update
           set consecutive_failures = e.consecutive_failures + 1, last_error = excluded.last_error, updated_at = $4,
               paused_until = case when e.consecutive_failures + 1 >= $5 and (e.paused_until is null or e.paused_until <= $4)
                 then $4::timestamptz + least($6::float8 * power(2, e.pauses), $7::float8) * interval '1 millisecond'
                 else e.paused_until end,
               pauses = case when e.consecutive_failures + 1 >= $5 and (e.paused_until is null or e.paused_until <= $4)
                 then e.pauses + 1 else e.pauses end
         returning case when paused_until > $4 then paused_until end as paused_until`,
        [userId, url, error, now, breaker.threshold, breaker.cooldownMs, breaker.maxCooldownMs],
      );
      return rows[0]?.paused_until ?? null;
    },

    /** The owner's endpoints paused right now. */
    async listPausedEndpoints(userId: string, now: Date): Promise<EndpointRow[]> {
      const { rows } = await q.query<EndpointRow>(
        `select url, consecutive_failures, paused_until, last_error from public.webhook_endpoints
          where user_id = $1 and paused_until > $2 order by url`,
        [userId, now],
      );
      return rows;
    },

    /**
     * Closes the owner's endpoint breaker and makes its waiting deliveries due now (none being
     * sent is touched). Null when the account has no breaker state for that url.
     */
    async resumeEndpoint(userId: string, url: string, now: Date): Promise<number | null> {
      const { rowCount } = await q.query(
        `update public.webhook_endpoints set consecutive_failures = 0, pauses = 0, paused_until = null, updated_at = $3
          where user_id = $1 and url = $2`,
        [userId, url, now],
      );
      if (rowCount === 0) return null;
      const due = await q.query(
        `update public.webhook_deliveries set next_attempt_at = least(next_attempt_at, $3), claim_token = null
          where user_id = $1 and url = $2 and status = 'pending' and (claim_token is null or next_attempt_at <= $3)`,
        [userId, url, now],
      );
      return due.rowCount;
    },

    /** The account's test events made since `since`, and those still pending. */
    async testEventCounts(userId: string, since: Date): Promise<{ recent: number; pending: number }> {
      const { rows } = await q.query<{ recent: number; pending: number }>(
        `select count(*) filter (where created_at > $2)::int as recent, count(*) filter (where status = 'pending')::int as pending
           from public.webhook_deliveries
          where user_id = $1 and event = 'webhook.test' and (created_at > $2 or status = 'pending')`,
        [userId, since],
      );
      return rows[0] ?? { recent: 0, pending: 0 };
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
