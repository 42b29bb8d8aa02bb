// The one read the Task Logs page makes (spec §7 Data store: logs select id, status, type,
// result, created_at, percentage, refund by email, newest first), behind an interface so the
// page can be tested with a fake. Row-level security limits it to the user's own tasks.
import { useMemo } from 'react';
import { type TypedApi, useApi } from '@aim/shared-kit/api';
import { withNormalizedStatus } from '@aim/shared-kit/domain';
import { getSupabaseClient, postgrestList, RANGE_NOT_SATISFIABLE } from '@aim/shared-kit/supabase';
import { apiKeyCondition, exportFilters, type KeyOption, type LogQuery, statusesOf, typesOf } from './log-rules.ts';

export type LogRow = {
  id: string;
  type: string;
  status: string;
  percentage: number | null;
  created_at: string;
  refund: number | null;
  result: unknown;
  /** The named API key that made it; null: the primary key or the dashboard. */
  api_key_id?: string | null;
};

export type LogPage = { rows: LogRow[]; total: number };

/** One credit movement of a task (public.credit_history): its hold, and its refund when it failed. */
export type Movement = { id: number; created_at: string; kind: string; delta: number; balance_after: number };

export type TaskLogsGateway = {
  list(email: string, query: LogQuery): Promise<LogPage>;
  /** The task's own credit movements, oldest first. */
  movements(taskId: string): Promise<Movement[]>;
  /** Starts the browser's download of the tasks the view's filters match, as CSV (every page). */
  exportCsv(query: LogQuery): Promise<void>;
  /** The account's named API keys (GET /auth/api-keys), for the key filter and the detail. */
  keys(): Promise<KeyOption[]>;
  /** POST /cancel {task_id}: stops a pending or processing task (it ends failed, 'Cancelled', refunded); errors are toasted. */
  cancel(taskId: string): Promise<void>;
};

export function createTaskLogsGateway(supabase: ReturnType<typeof getSupabaseClient>, api: TypedApi): TaskLogsGateway {
  /** The caller's tasks matching the query's filters (RLS keeps them to the caller anyway). */
  function matching(email: string, query: LogQuery, columns: string, head: boolean) {
    let request = supabase.from('tasks').select(columns, { count: 'exact', head }).eq('email', email);
    const statuses = statusesOf(query.status);
    if (statuses) request = request.in('status', statuses);
    const types = typesOf(query.type);
    if (types) {
      const anyOf = [...(types.types.length ? [`type.in.(${postgrestList(types.types)})`] : []), ...types.prefixes.map((p) => `type.like.${p}*`)];
      request = request.or(anyOf.join(','));
    }
    if (query.taskId) request = request.eq('id', query.taskId);
    const byKey = apiKeyCondition(query.key);
    if (byKey) request = 'is' in byKey ? request.is('api_key_id', null) : request.eq('api_key_id', byKey.eq);
    return request;
  }

  return {
    async list(email, query) {
      const from = (query.page - 1) * query.pageSize;
      const { data, error, count } = await matching(email, query, 'id, status, type, result, created_at, percentage, refund, api_key_id', false)
        .order('created_at', { ascending: false })
        .order('id', { ascending: false })
        .range(from, from + query.pageSize - 1);
      if (error?.code === RANGE_NOT_SATISFIABLE) {
        // a page past the end (fewer tasks than when the link was made): empty, with the total
        const head = await matching(email, query, 'id', true);
        if (head.error) throw new Error(head.error.message);
        return { rows: [], total: head.count ?? 0 };
      }
      if (error) throw new Error(error.message);
      // an older `success` row shows as finished, the status the filter lists
      return { rows: ((data ?? []) as unknown as LogRow[]).map(withNormalizedStatus), total: count ?? 0 };
    },
    async movements(taskId) {
      const { data, error } = await supabase
        .from('credit_history')
        .select('id, created_at, kind, delta, balance_after')
        .eq('task_id', taskId)
        .order('created_at', { ascending: true })
        .order('id', { ascending: true });
      if (error) throw new Error(error.message);
      return (data ?? []) as Movement[];
    },
    async exportCsv(query) {
      // A navigation to a one-time link, not fetch + Blob: the browser streams the server's
      // CSV straight to disk (100,000 rows never sit in this page), and the answer's
      // Content-Disposition: attachment keeps the page where it is.
      const { url } = await api.post('/exports', { body: { kind: 'task-logs', filters: exportFilters(query) }, toastOnError: false });
      const link = document.createElement('a');
      link.href = url;
      link.rel = 'noopener';
      document.body.appendChild(link);
      link.click();
      link.remove();
    },
    async keys() {
      const { keys } = await api.get('/auth/api-keys', { toastOnError: false });
      return keys.map(({ id, name, prefix, last4, revoked }) => ({ id, name, prefix, last4, revoked }));
    },
    async cancel(taskId) {
      await api.post('/cancel', { body: { task_id: taskId } });
    },
  };
}

export function useTaskLogsGateway(): TaskLogsGateway {
  const api = useApi();
  return useMemo(() => createTaskLogsGateway(getSupabaseClient(), api), [api]);
}
