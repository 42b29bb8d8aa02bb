/**
 * @module public.tasks (+ tasks_archive_1, task_webhooks, task_settlements) for the API
 * server and the task worker. The only SQL about tasks; parameters only. The server is the
 * table owner (no RLS), so every read for a caller is scoped by the caller's user id.
 */
import { isPgError, type Queryable } from '@aim/supabase/db';

/** SQLSTATE public.apply_credit raises instead of letting a balance go negative. */
const INSUFFICIENT_CREDITS_SQLSTATE = 'P0402';

export function isInsufficientCredits(error: unknown): boolean {
  return isPgError(error) && error.code === INSUFFICIENT_CREDITS_SQLSTATE;
}

/** Statuses after which a task never changes again (spec §4). */
export const TERMINAL_STATUSES = ['success', 'finished', 'failed'] as const;

export interface TaskRow {
  id: string;
  user_id: string;
  email: string;
  type: string;
  status: string;
  percentage: number;
  complete: boolean;
  prompt: string | null;
  parent_prompt: string | null;
  parent_id: string | null;
  image_url: string | null;
  image_urls: string[] | null;
  video_url: string | null;
  video_urls: string[] | null;
  audio_urls: string[] | null;
  lyrics: string | null;
  cost: number;
  refund: number;
  result: Record<string, unknown> | null;
  seed: string | null;
  input_data: Record<string, unknown> | null;
  mode: string | null;
  created_at: Date;
  updated_at: Date;
  /** When an AI photo upload or training can no longer be used (null: never). */
  expires_at: Date | null;
  /** True when the row was read from tasks_archive_1. */
  archived: boolean;
}

export interface NewTask {
  id: string;
  userId: string;
  email: string;
  type: string;
  cost: number;
  prompt: string | null;
  parentPrompt?: string | null;
  parentId?: string | null;
  mode?: string | null;
  inputData?: Record<string, unknown> | null;
  expiresAt?: Date | null;
}

export interface TaskSuccess {
  imageUrl: string | null;
  imageUrls: string[] | null;
  /** Videos and songs (spec §3 video_url, video_urls, audio_urls) and lyrics; absent: none. */
  videoUrls?: string[] | null;
  audioUrls?: string[] | null;
  lyrics?: string | null;
  seed: string | null;
  result: Record<string, unknown>;
}

const COLUMNS = `id, user_id, email, type, status, percentage, complete, prompt, parent_prompt, parent_id,
  image_url, image_urls, video_url, video_urls, audio_urls, lyrics, cost, refund, result, seed, input_data, mode, created_at, updated_at, expires_at`;

/** The columns of a TaskRow, for the other repositories that read tasks (task-event-repository.ts). */
export const TASK_COLUMNS = COLUMNS;

const NOT_TERMINAL = `status not in ('success', 'finished', 'failed')`;

export function taskRepository(q: Queryable) {
  return {
    /**
     * Creates a task in one statement (public.submit_task): the hold (`hold:<id>` through
     * public.apply_credit: the user's row locked, never below zero, SQLSTATE P0402 instead),
     * the task row, its per-request webhook when it has a URL or a secret, its job on `queue`
     * and the NOTIFY on `channel`, all or nothing. Answers whether billing's auto top-up has
     * to look at the account now (auto top-up on and the balance below its threshold, or an
     * attempt still open), read under the hold's row lock.
     */
    async submit(
      task: NewTask & {
        /** `events`: the request's webhook_events filter (null: the account's filter). */
        webhook: { url: string | null; secret: string | null; events?: readonly string[] | null } | null;
        queue: string;
        maxAttempts: number;
        channel: string;
        /** The submitting request's id, kept on the job for the worker's and webhooks' log lines. */
        requestId?: string | null;
        /**
         * The named key that made it (tasks.api_key_id; null: the primary key or the dashboard).
         * public.submit_task locks that key's row, refuses it when revoked or expired (SQLSTATE
         * PK401) and enforces its monthly credit limit (PK402) in the same statement.
         */
        apiKeyId?: string | null;
      },
    ): Promise<{ topUpDue: boolean }> {
      const { rows } = await q.query<{ top_up_due: boolean }>(
        `select public.submit_task($1::uuid, $2::text, $3::uuid, $4::text, $5::int, $6::text, $7::text, $8::uuid, $9::text, $10::jsonb,
                                   $11::timestamptz, $12::text, $13::text, $14::text, $15::int, $16::text, $17::text, $18::uuid, $19::text[]) as top_up_due`,
        [
          task.userId,
          task.email,
          task.id,
          task.type,
          task.cost,
          task.prompt,
          task.parentPrompt ?? null,
          task.parentId ?? null,
          task.mode ?? null,
          task.inputData ?? null,
          task.expiresAt ?? null,
          task.webhook?.url ?? null,
          task.webhook?.secret ?? null,
          task.queue,
          task.maxAttempts,
          task.channel,
          task.requestId ?? null,
          task.apiKeyId ?? null,
          task.webhook?.events ? [...task.webhook.events] : null,
        ],
      );
      return { topUpDue: rows[0].top_up_due };
    },

    /** The user's balance, for a check before work that should not be done for nothing (the hold decides). */
    async creditsOf(userId: string): Promise<number> {
      const { rows } = await q.query<{ credits: number }>('select credits from public.mdusers where id = $1', [userId]);
      return rows[0]?.credits ?? 0;
    },

    /** The per-request webhook of a task (a null url means the account's URL; null events, the account's filter), for the webhook sender. */
    async findWebhook(taskId: string): Promise<{ url: string | null; secret: string | null; events: string[] | null } | undefined> {
      const { rows } = await q.query<{ url: string | null; secret: string | null; events: string[] | null }>(
        'select url, secret, events from public.task_webhooks where task_id = $1',
        [taskId],
      );
      return rows[0];
    },

    /** A task of this user, live or archived; undefined when it is someone else's or unknown. */
    async findOwn(userId: string, taskId: string): Promise<TaskRow | undefined> {
      const { rows } = await q.query<TaskRow>(
        `select ${COLUMNS}, false as archived from public.tasks where id = $1 and user_id = $2
         union all
         select ${COLUMNS}, true as archived from public.tasks_archive_1 where id = $1 and user_id = $2
         limit 1`,
        [taskId, userId],
      );
      return rows[0];
    },

    /**
     * The tasks of this user among `taskIds`, live or archived, in no particular order; ids that
     * are someone else's or unknown are left out.
     */
    async findOwnMany(userId: string, taskIds: readonly string[]): Promise<TaskRow[]> {
      const { rows } = await q.query<TaskRow>(
        `select ${COLUMNS}, false as archived from public.tasks where id = any($1::uuid[]) and user_id = $2
         union all
         select ${COLUMNS}, true as archived from public.tasks_archive_1 a
          where a.id = any($1::uuid[]) and a.user_id = $2 and not exists (select 1 from public.tasks t where t.id = a.id)`,
        [taskIds, userId],
      );
      return rows;
    },

    /**
     * The ids of the tasks made from each of `parentIds` (its upscales, variations, rerolls,
     * pans, zooms, region edits, seed…), live or archived, oldest first, this user's only: a
     * child row of another account never shows. Both tables have an index on parent_id.
     */
    async findOwnChildIds(userId: string, parentIds: readonly string[]): Promise<Map<string, string[]>> {
      const { rows } = await q.query<{ parent_id: string; id: string }>(
        `select parent_id, id from (
           select parent_id, id, created_at from public.tasks where parent_id = any($1::uuid[]) and user_id = $2
           union all
           select parent_id, id, created_at from public.tasks_archive_1 a
            where a.parent_id = any($1::uuid[]) and a.user_id = $2 and not exists (select 1 from public.tasks t where t.id = a.id)
         ) c order by created_at, id`,
        [parentIds, userId],
      );
      const children = new Map(parentIds.map((id) => [id, [] as string[]]));
      for (const row of rows) children.get(row.parent_id)?.push(row.id);
      return children;
    },

    /**
     * How many pictures the user's finished generations delivered (live and archived): each
     * task's image_urls (a grid's four cells, a set's photos; a single picture counts once),
     * or its image_url alone. AI photo uploads and trainings are left out (their pictures are
     * the user's own photos and crops of them), and so are failed and unfinished tasks.
     */
    async countGeneratedImages(userId: string): Promise<number> {
      const { rows } = await q.query<{ n: number }>(
        `select coalesce(sum(case when cardinality(image_urls) > 0 then cardinality(image_urls)
                                  when image_url is not null then 1 else 0 end), 0)::int as n
           from (select type, image_url, image_urls from public.tasks where user_id = $1 and status in ('finished', 'success')
                 union all
                 select type, image_url, image_urls from public.tasks_archive_1 where user_id = $1 and status in ('finished', 'success')) t
          where type not in ('ai-photo-upload', 'ai-photo-train')`,
        [userId],
      );
      return rows[0]?.n ?? 0;
    },

    /** For the worker: a task by id, live or archived, whoever owns it. */
    async findById(taskId: string): Promise<TaskRow | undefined> {
      const { rows } = await q.query<TaskRow>(
        `select ${COLUMNS}, false as archived from public.tasks where id = $1
         union all
         select ${COLUMNS}, true as archived from public.tasks_archive_1 where id = $1
         limit 1`,
        [taskId],
      );
      return rows[0];
    },

    /**
     * Progress of a running task: the percentage only ever rises (greatest()), whatever
     * order writes land in; a terminal task is left alone. Undefined when nothing changed.
     */
    async recordProgress(taskId: string, percentage: number, status: string): Promise<TaskRow | undefined> {
      const { rows } = await q.query<TaskRow>(
        `update public.tasks set percentage = greatest(percentage, least($2::int, 99)), status = $3
          where id = $1 and ${NOT_TERMINAL}
            and (percentage < least($2::int, 99) or status <> $3)
         returning ${COLUMNS}, false as archived`,
        [taskId, percentage, status],
      );
      return rows[0];
    },

    /**
     * The pictures of a running task stored so far (several of equal rank, stored one by one),
     * shown before it ends; a terminal task is left alone.
     */
    async recordImages(taskId: string, imageUrls: string[]): Promise<TaskRow | undefined> {
      const { rows } = await q.query<TaskRow>(
        `update public.tasks set image_url = $2, image_urls = $3
          where id = $1 and ${NOT_TERMINAL}
         returning ${COLUMNS}, false as archived`,
        [taskId, imageUrls[0] ?? null, imageUrls],
      );
      return rows[0];
    },

    async markSucceeded(taskId: string, success: TaskSuccess): Promise<TaskRow | undefined> {
      const { rows } = await q.query<TaskRow>(
        `update public.tasks set status = 'finished', percentage = 100, complete = true,
                image_ready = $2::text is not null, image_url = $2, image_urls = $3, seed = coalesce($4, seed), result = $5,
                video_url = ($6::text[])[1], video_urls = $6, audio_urls = $7, lyrics = $8
          where id = $1 and ${NOT_TERMINAL}
         returning ${COLUMNS}, false as archived`,
        [
          taskId,
          success.imageUrl,
          success.imageUrls,
          success.seed,
          success.result,
          success.videoUrls ?? null,
          success.audioUrls ?? null,
          success.lyrics ?? null,
        ],
      );
      return rows[0];
    },

    /**
     * Fails a task and records its refund; the percentage stays where the run got to, pictures
     * stored before the failure are not shown.
     */
    async markFailed(taskId: string, result: Record<string, unknown>, refund: number): Promise<TaskRow | undefined> {
      const { rows } = await q.query<TaskRow>(
        `update public.tasks set status = 'failed', complete = true, result = $2, refund = $3, image_url = null, image_urls = null
          where id = $1 and ${NOT_TERMINAL}
         returning ${COLUMNS}, false as archived`,
        [taskId, result, refund],
      );
      return rows[0];
    },

    /**
     * Records how a task's hold ended, once: answers false when it was already settled
     * (the caller then moves no credits).
     */
    async settle(taskId: string, userId: string, outcome: 'charged' | 'refunded', amount: number): Promise<boolean> {
      const { rows } = await q.query(
        `insert into public.task_settlements (task_id, user_id, outcome, amount) values ($1, $2, $3, $4)
         on conflict (task_id) do nothing returning task_id`,
        [taskId, userId, outcome, amount],
      );
      return rows.length > 0;
    },

    /**
     * Moves a task's credits through public.apply_credit (the one way a balance changes:
     * a ledger row with a unique source key, a row lock on mdusers, never below zero).
     * Answers the new balance, or null when that source key was already applied; throws
     * SQLSTATE P0402 rather than go below zero.
     */
    async applyCredit(userId: string, delta: number, sourceKey: string, reason: string, taskId: string): Promise<number | null> {
      const { rows } = await q.query<{ balance: number | null }>('select public.apply_credit($1, $2, $3, $4, $5) as balance', [
        userId,
        delta,
        sourceKey,
        reason,
        taskId,
      ]);
      return rows[0].balance;
    },
  };
}
