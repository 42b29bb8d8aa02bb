// What the usage chart, the credit history and their CSV export ask of the outside world,
// behind one interface so the panels are tested with a fake. Reads go through supabase-js
// (public.credit_usage and public.credit_history: row-level security keeps them to the
// caller); the export asks the API for a one-time link and lets the browser download it.
import { useMemo } from 'react';
import { type TypedApi, useApi } from '@aim/shared-kit/api';
import { getSupabaseClient } from '@aim/shared-kit/supabase';
import { HISTORY_PAGE_SIZE, type HistoryCursor, olderThan } from './history-rules.ts';
import type { UsageRow } from './usage-rules.ts';

/** A row of public.credit_history: one ledger movement and the balance it left. */
export type HistoryRow = HistoryCursor & {
  delta: number;
  balance_after: number;
  kind: string;
  task_id: string | null;
  task_type: string | null;
  invoice_number: string | null;
};

type ExportKind = 'task-logs' | 'credit-history';

export type ActivityGateway = {
  /** Credits spent per UTC day and task type, the last `days` days. */
  usage(days: number): Promise<UsageRow[]>;
  /** One page of the history, newest first: the first, or the one after `after`. */
  history(after: HistoryCursor | null): Promise<HistoryRow[]>;
  /** Starts the browser's download of the CSV (streamed by the server to disk). */
  exportCsv(kind: ExportKind): Promise<void>;
};

const COLUMNS = 'id, created_at, delta, balance_after, kind, task_id, task_type, invoice_number';

/**
 * Follows a one-time link from POST /exports. A navigation, not fetch + Blob: the browser
 * writes the streamed answer straight to disk (100,000 rows never sit in the page's memory)
 * and the server's Content-Disposition: attachment keeps this page where it is.
 */
async function downloadExport(api: TypedApi, body: { kind: ExportKind }): Promise<void> {
  const { url } = await api.post('/exports', { body, toastOnError: false });
  const link = document.createElement('a');
  link.href = url;
  link.rel = 'noopener';
  document.body.appendChild(link);
  link.click();
  link.remove();
}

function createActivityGateway(supabase: ReturnType<typeof getSupabaseClient>, api: TypedApi): ActivityGateway {
  return {
    async usage(days) {
      const { data, error } = await supabase.rpc('credit_usage', { p_days: days });
      if (error) throw new Error(error.message);
      return (data ?? []) as UsageRow[];
    },
    async history(after) {
      let request = supabase.from('credit_history').select(COLUMNS);
      if (after) request = request.lte('created_at', after.created_at).or(olderThan(after));
      const { data, error } = await request.order('created_at', { ascending: false }).order('id', { ascending: false }).limit(HISTORY_PAGE_SIZE);
      if (error) throw new Error(error.message);
      return (data ?? []) as HistoryRow[];
    },
    exportCsv: (kind) => downloadExport(api, { kind }),
  };
}

export function useActivityGateway(): ActivityGateway {
  const api = useApi();
  return useMemo(() => createActivityGateway(getSupabaseClient(), api), [api]);
}
