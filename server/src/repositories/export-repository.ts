/**
 * @module The SQL of the CSV exports (issue 15): one-time export tokens and the keyset pages
 * the streamed CSV is written from. The server connects as the table owner, so RLS does not
 * apply: every read is scoped by the token's user id explicitly.
 */
import type { Queryable } from '@aim/supabase/db';

export type ExportKind = 'task-logs' | 'credit-history';

/** Task Logs' filters, already resolved to what they match (the dashboard's log-rules.ts decides). */
export interface TaskLogFilters {
  statuses?: string[];
  types?: string[];
  /** Open-ended type families (outpaint-*): each a prefix. */
  prefixes?: string[];
  task_id?: string;
}

/**
 * Where a page ended: created_at as Postgres's own text (microseconds kept; a JS Date would
 * drop them and the next page would skip rows within the same millisecond) and the id.
 */
export interface ExportCursor {
  at: string;
  id: string;
}

export interface TaskLogExportRow {
  id: string;
  type: string;
  status: string;
  percentage: number;
  created_at: string;
  cost: number;
  refund: number;
  prompt: string | null;
  message: string | null;
  cursor_at: string;
}

export interface CreditExportRow {
  id: number;
  created_at: string;
  kind: string;
  delta: number;
  balance_after: number;
  task_id: string | null;
  task_type: string | null;
  invoice_number: string | null;
  cursor_at: string;
}

// ISO 8601 in UTC with microseconds, whatever the session's time zone. Output columns named
// created_at would shadow the table's in ORDER BY (and sort text, without the index): the
// statements qualify the table's column as r.created_at.
const ISO_UTC = `to_char(r.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

/** Escapes LIKE's wildcards so a prefix matches literally. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, '\\$&')}%`;

export function exportRepository(q: Queryable) {
  return {
    async createToken(p: { tokenHash: string; userId: string; kind: ExportKind; filters: object; expiresAt: Date }): Promise<void> {
      // tokens nobody used: dropped as new ones are made (the expiry index finds them)
      await q.query(`delete from public.export_tokens where expires_at < now() - interval '1 hour'`);
      await q.query('insert into public.export_tokens (token_hash, user_id, kind, filters, expires_at) values ($1, $2, $3, $4, $5)', [
        p.tokenHash,
        p.userId,
        p.kind,
        JSON.stringify(p.filters),
        p.expiresAt,
      ]);
    },

    /** Uses a token up: answers its owner and filters once, while unexpired and of that kind; afterwards undefined. */
    async consumeToken(tokenHash: string, kind: ExportKind): Promise<{ userId: string; filters: Record<string, unknown> } | undefined> {
      const { rows } = await q.query<{ user_id: string; filters: Record<string, unknown> }>(
        `delete from public.export_tokens where token_hash = $1 and kind = $2 and expires_at > now() returning user_id, filters`,
        [tokenHash, kind],
      );
      return rows[0] ? { userId: rows[0].user_id, filters: rows[0].filters } : undefined;
    },

    /** One page of the user's tasks (Task Logs: live tasks, newest first), after the cursor. */
    async taskLogPage(userId: string, filters: TaskLogFilters, after: ExportCursor | null, limit: number): Promise<TaskLogExportRow[]> {
      const params: unknown[] = [userId];
      const where = ['r.user_id = $1'];
      const param = (value: unknown) => {
        params.push(value);
        return `$${params.length}`;
      };
      if (filters.statuses?.length) where.push(`r.status = any(${param(filters.statuses)}::text[])`);
      if (filters.types?.length || filters.prefixes?.length) {
        const anyOf = [
          ...(filters.types?.length ? [`r.type = any(${param(filters.types)}::text[])`] : []),
          ...(filters.prefixes ?? []).map((p) => `r.type like ${param(likePrefix(p))}`),
        ];
        where.push(`(${anyOf.join(' or ')})`);
      }
      if (filters.task_id) where.push(`r.id = ${param(filters.task_id)}::uuid`);
      if (after) {
        const at = param(after.at);
        where.push(`r.created_at <= ${at}::timestamptz and (r.created_at < ${at}::timestamptz or r.id < ${param(after.id)}::uuid)`);
      }
      const { rows } = await q.query<TaskLogExportRow>(
        `select r.id, r.type, r.status, r.percentage, ${ISO_UTC} as created_at, r.cost, r.refund, r.prompt, r.result->>'message' as message,
                r.created_at::text as cursor_at
           from public.tasks r
          where ${where.join(' and ')}
          order by r.created_at desc, r.id desc
          limit ${param(limit)}`,
        params,
      );
      return rows;
    },

    /** One page of the user's credit history (public.credit_history), newest first, after the cursor. */
    async creditHistoryPage(userId: string, after: ExportCursor | null, limit: number): Promise<CreditExportRow[]> {
      // two statements rather than "$2 is null or …": a generic plan keeps the index condition
      const keyset = after ? 'and r.created_at <= $3::timestamptz and (r.created_at < $3::timestamptz or r.id < $4::bigint)' : '';
      const { rows } = await q.query<CreditExportRow>(
        `select r.id, ${ISO_UTC} as created_at, r.kind, r.delta, r.balance_after, r.task_id, r.task_type, r.invoice_number, r.created_at::text as cursor_at
           from public.credit_history r
          where r.user_id = $1 ${keyset}
          order by r.created_at desc, r.id desc
          limit $2`,
        after ? [userId, limit, after.at, after.id] : [userId, limit],
      );
      return rows;
    },
  };
}
