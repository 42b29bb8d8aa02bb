// Spec §2 Task Logs, §4, §9: the filters, page sizes and how a log row reads. Pure, so the page
// and the query share one meaning of each filter.
import { formatLocalDateTime, formatUtcDateTime } from '@aim/shared-kit/format';
import { DEFAULT_LOG_PAGE_SIZE, LOG_PAGE_SIZES, LOG_STATUS_FILTER, LOG_TYPE_FILTER, type TaskFamily, typesOfFamilies } from '@aim/shared-kit/domain';

export type StatusFilter = (typeof LOG_STATUS_FILTER)[number];
export type TypeFilter = (typeof LOG_TYPE_FILTER)[number];
type PageSize = (typeof LOG_PAGE_SIZES)[number];

/** What the log shows; kept in the page's query string, so a view can be reloaded and shared. */
export type LogQuery = {
  status: StatusFilter;
  type: TypeFilter;
  /** A full task id to find one task, or ''. */
  taskId: string;
  /** 1-based. */
  page: number;
  pageSize: PageSize;
  /** Which API key made the tasks: 'all', 'primary' (the account key and the dashboard) or a named key's id. */
  key: KeyFilter;
};

export type KeyFilter = 'all' | 'primary' | (string & {});

export const TEXTS = {
  loading: 'Loading...',
  empty: 'No results.',
  loadFailed: 'The task log could not be loaded.',
  badTaskId: 'Enter a full task ID (36 characters, like 0b8e…-…).',
  exportFailed: 'The export could not be started. Please try again.',
  movementsFailed: 'The credit movements could not be loaded.',
  exportAllKeys: 'The CSV export covers every key: choose All keys to export.',
  noMovements: 'No credit movements for this task.',
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isTaskId(value: string): boolean {
  return UUID.test(value.trim());
}

const pick = <T extends string>(options: readonly T[], value: string | null, fallback: T): T => (options.includes(value as T) ? (value as T) : fallback);

/** Reads the query string; anything unknown falls back to the default (all, all, page 1, 20). */
export function parseLogQuery(params: URLSearchParams): LogQuery {
  const size = Number(params.get('size'));
  const page = Number(params.get('page'));
  return {
    status: pick(LOG_STATUS_FILTER, params.get('status'), 'all'),
    type: pick(LOG_TYPE_FILTER, params.get('type'), 'all'),
    taskId: (params.get('id') ?? '').trim(),
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    pageSize: (LOG_PAGE_SIZES as readonly number[]).includes(size) ? (size as PageSize) : DEFAULT_LOG_PAGE_SIZE,
    key: parseKeyFilter(params.get('key')),
  };
}

function parseKeyFilter(value: string | null): KeyFilter {
  const key = (value ?? '').trim();
  if (key === 'primary') return 'primary';
  return UUID.test(key) ? key.toLowerCase() : 'all';
}

/** The tasks.api_key_id condition of a key filter: none, `is null` (primary) or one key's id. */
export function apiKeyCondition(key: KeyFilter): { is: null } | { eq: string } | null {
  if (key === 'all') return null;
  return key === 'primary' ? { is: null } : { eq: key };
}

/** A named key as the filter and the detail name it. */
export type KeyOption = { id: string; name: string; prefix: string; last4: string; revoked: boolean };

/** The key filter's options: All keys, Primary key, then each named key ('(revoked)' when it is). */
export function keyFilterOptions(keys: readonly KeyOption[], selected: KeyFilter): { value: string; label: string }[] {
  const options = [
    { value: 'all', label: 'All keys' },
    { value: 'primary', label: 'Primary key' },
    ...keys.map((k) => ({ value: k.id, label: `${k.name} (${k.prefix}…${k.last4})${k.revoked ? ' (revoked)' : ''}` })),
  ];
  // a key from the URL that is not (or not yet) in the list still shows as chosen
  if (!options.some((o) => o.value === selected)) options.push({ value: selected, label: 'Unknown key' });
  return options;
}

/** Which key made a task, for its detail. */
export function describeTaskKey(apiKeyId: string | null | undefined, keys: readonly KeyOption[]): string {
  if (!apiKeyId) return 'Primary key or dashboard';
  const key = keys.find((k) => k.id === apiKeyId);
  return key ? `${key.name} (${key.prefix}…${key.last4})` : `Named key ${apiKeyId.slice(0, 8)}…`;
}

/** The query string of a log view, leaving out defaults. */
export function logSearch(query: LogQuery): string {
  const params = new URLSearchParams();
  if (query.status !== 'all') params.set('status', query.status);
  if (query.type !== 'all') params.set('type', query.type);
  if (query.taskId) params.set('id', query.taskId);
  if (query.page !== 1) params.set('page', String(query.page));
  if (query.pageSize !== DEFAULT_LOG_PAGE_SIZE) params.set('size', String(query.pageSize));
  if (query.key !== 'all') params.set('key', query.key);
  return params.toString();
}

/**
 * The statuses a status filter matches. Tasks end as finished (§4); rows written before the
 * API became APIFRAME v1-compatible say success for the same outcome, so the filter's finished
 * covers both.
 */
export function statusesOf(filter: StatusFilter): string[] | null {
  if (filter === 'all') return null;
  if (filter === 'finished') return ['success', 'finished'];
  return [filter];
}

/** The task types a type filter matches: exact types plus prefixes (outpaint-* has open-ended suffixes). */
export function typesOf(filter: TypeFilter): { types: string[]; prefixes: string[] } | null {
  if (filter === 'all') return null;
  const family: TaskFamily = filter === 'ai-photos' ? 'ai-photo' : filter;
  return typesOfFamilies([family]);
}

/** The view's filters as the CSV export (POST /exports) takes them: resolved here, so they mean what the table shows. */
export function exportFilters(query: LogQuery): { statuses?: string[]; types?: string[]; prefixes?: string[]; task_id?: string } {
  const statuses = statusesOf(query.status);
  const types = typesOf(query.type);
  return {
    ...(statuses ? { statuses } : {}),
    ...(types ? { types: types.types, prefixes: types.prefixes } : {}),
    ...(query.taskId ? { task_id: query.taskId } : {}),
  };
}

const MOVEMENT_LABEL: Record<string, string> = { hold: 'Held', refund: 'Refunded' };

/** A task's credit movement in the detail: 'Held 4 credits' / 'Refunded 4 credits', with the balance after. */
export function formatMovement(m: { kind: string; delta: number; balance_after: number }): string {
  const n = Math.abs(m.delta);
  return `${MOVEMENT_LABEL[m.kind] ?? m.kind} ${n} credit${n === 1 ? '' : 's'} · balance after ${m.balance_after.toLocaleString('en-US')}`;
}

/** The Refund column: '+4' when credits came back, else empty. */
export function formatRefund(refund: number | null | undefined): string {
  return refund ? `+${refund}` : '';
}

/** Created At in UTC ('2026-11-22 14:05:09 UTC') or in the browser's time zone ('2026-11-22 15:05:09'). */
export function formatCreatedAt(iso: string, utc: boolean): string {
  return (utc ? formatUtcDateTime(iso) : formatLocalDateTime(iso)) ?? iso;
}

export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}
