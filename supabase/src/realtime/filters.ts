/**
 * The postgres_changes subscription parameters and filter grammar Realtime accepts
 * (supabase/realtime lib/extensions/postgres_cdc_rls/subscriptions.ex parse_subscription_params,
 * as released before 2026-06-19: `column=op.value`, op one of eq, neq, lt, lte, gt, gte, in),
 * and the filter evaluation its SQL does (realtime.check_equality_op), here done on the row the
 * subscriber receives. Filters are comparisons only: no pattern or regular expression taken
 * from a client is ever compiled or run.
 */
const FILTER_OPS = ['eq', 'neq', 'lt', 'lte', 'gt', 'gte', 'in'] as const;
type FilterOp = (typeof FILTER_OPS)[number];

/** Values an `in` filter may list (realtime.subscription_check_filters). */
const MAX_IN_VALUES = 100;

export interface ColumnFilter {
  column: string;
  op: FilterOp;
  /** For `in`: the Postgres array literal `{a,b}` Realtime builds from `(a,b)`. */
  value: string;
}

export interface SubscriptionParams {
  event: '*' | 'INSERT' | 'UPDATE' | 'DELETE';
  schema: string;
  table: string;
  filters: ColumnFilter[];
}

export type ParseResult = { ok: true; params: SubscriptionParams } | { ok: false; error: string };

// Elixir's inspect of a list of strings, as Realtime quotes parse failures
const inspectList = (parts: string[]) => `[${parts.map((p) => JSON.stringify(p)).join(', ')}]`;

function actionFilter(event: unknown): SubscriptionParams['event'] {
  if (typeof event !== 'string') return '*';
  const up = event.toUpperCase();
  return up === 'INSERT' || up === 'UPDATE' || up === 'DELETE' ? up : '*';
}

export function parseSubscriptionParams(params: Record<string, unknown>): ParseResult {
  const event = actionFilter(params.event);
  const { schema, table, filter } = params;
  const has = (k: string) => k in params && params[k] !== undefined;
  if (typeof schema === 'string' && typeof table === 'string' && typeof filter === 'string') {
    const parsed = parseFilters(filter);
    if (!parsed.ok) return { ok: false, error: `Error parsing \`filter\` params: ${parsed.error}` };
    return { ok: true, params: { event, schema, table, filters: parsed.filters } };
  }
  if (typeof schema === 'string' && typeof table === 'string' && !has('filter')) return { ok: true, params: { event, schema, table, filters: [] } };
  if (typeof schema === 'string' && !has('table') && !has('filter')) return { ok: true, params: { event, schema, table: '*', filters: [] } };
  if (typeof table === 'string' && !has('schema') && !has('filter')) return { ok: true, params: { event, schema: 'public', table, filters: [] } };
  return {
    ok: false,
    error: `No subscription params provided. Please provide at least a \`schema\` or \`table\` to subscribe to: ${JSON.stringify(params)}`,
  };
}

function parseFilters(filter: string): { ok: true; filters: ColumnFilter[] } | { ok: false; error: string } {
  const trimmed = filter.trim();
  if (!trimmed) return { ok: true, filters: [] };
  const filters: ColumnFilter[] = [];
  for (const segment of splitTopLevel(trimmed)) {
    const seg = segment.trim();
    if (!seg) return { ok: false, error: 'filter must not contain empty segments (check for extra commas)' };
    const eq = seg.indexOf('=');
    if (eq < 0) return { ok: false, error: inspectList([seg]) };
    const column = seg.slice(0, eq);
    const rest = seg.slice(eq + 1);
    const dot = rest.indexOf('.');
    if (dot < 0) return { ok: false, error: inspectList([rest]) };
    const op = rest.slice(0, dot);
    const raw = rest.slice(dot + 1);
    if (!(FILTER_OPS as readonly string[]).includes(op)) return { ok: false, error: inspectList([op, raw]) };
    let value: string;
    if (op === 'in') {
      if (raw.length < 2 || !raw.startsWith('(') || !raw.endsWith(')')) return { ok: false, error: '`in` filter value must be wrapped by parentheses' };
      value = `{${raw.slice(1, -1)}}`;
    } else {
      value = unquote(raw);
    }
    filters.push({ column, op: op as FilterOp, value });
  }
  return { ok: true, filters };
}

// Splits on commas outside parentheses and outside double quotes (a quote opens only after
// `.`, `(` or `,`, as in Realtime), keeping the pieces verbatim.
function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let depth = 0;
  let quoted = false;
  let prev = '';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (quoted) {
      if (ch === '\\' && i + 1 < s.length) {
        cur += ch + s[++i];
        prev = s[i];
        continue;
      }
      if (ch === '"') quoted = false;
      cur += ch;
      prev = ch;
      continue;
    }
    if (ch === '"' && (prev === '.' || prev === '(' || prev === ',')) quoted = true;
    else if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
      prev = '';
      continue;
    }
    cur += ch;
    prev = ch;
  }
  out.push(cur);
  return out;
}

function unquote(value: string): string {
  if (!value.startsWith('"')) return value;
  let acc = '';
  for (let i = 1; i < value.length; i++) {
    const ch = value[i];
    if (ch === '"') return i === value.length - 1 ? acc : value;
    if (ch === '\\' && i + 1 < value.length) acc += value[++i];
    else acc += ch;
  }
  return value;
}

/** Elements of a one-dimensional Postgres array literal such as `{a,"b,c"}`. */
function parseArrayLiteral(literal: string): string[] {
  const body = literal.slice(1, -1);
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  let wasQuoted = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quoted) {
      if (ch === '\\' && i + 1 < body.length) cur += body[++i];
      else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') {
      quoted = wasQuoted = true;
    } else if (ch === ',') {
      out.push(wasQuoted ? cur : cur.trim());
      cur = '';
      wasQuoted = false;
    } else {
      cur += ch;
    }
  }
  if (body.length > 0) out.push(wasQuoted ? cur : cur.trim());
  return out;
}

type Kind = 'number' | 'bool' | 'time' | 'uuid' | 'text';

const NUMERIC = new Set(['int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'oid']);
const TIME = new Set(['timestamptz', 'timestamp', 'date']);

function kindOf(typname: string | undefined): Kind {
  if (!typname) return 'text';
  if (NUMERIC.has(typname)) return 'number';
  if (typname === 'bool') return 'bool';
  if (TIME.has(typname)) return 'time';
  if (typname === 'uuid') return 'uuid';
  return 'text';
}

const TRUE_WORDS = new Set(['t', 'true', 'y', 'yes', 'on', '1']);
const FALSE_WORDS = new Set(['f', 'false', 'n', 'no', 'off', '0']);

/** The filter value as the column's type, or undefined when it does not cast (a join error in Realtime). */
function castFilterValue(value: string, typname: string | undefined): number | boolean | string | undefined {
  switch (kindOf(typname)) {
    case 'number': {
      const n = Number(value.trim());
      return value.trim() !== '' && Number.isFinite(n) ? n : undefined;
    }
    case 'bool': {
      const v = value.trim().toLowerCase();
      return TRUE_WORDS.has(v) ? true : FALSE_WORDS.has(v) ? false : undefined;
    }
    case 'time': {
      // Postgres prints zone offsets as +00; Date.parse wants +00:00
      const t = Date.parse(
        value
          .trim()
          .replace(' ', 'T')
          .replace(/([+-]\d\d)$/, '$1:00'),
      );
      return Number.isNaN(t) ? undefined : t;
    }
    case 'uuid':
      return /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(value.trim())
        ? value.trim().toLowerCase().replace(/-/g, '')
        : undefined;
    default:
      return value;
  }
}

// A row value (typed JSON from to_jsonb) in the same representation castFilterValue produces.
function castRowValue(v: unknown, typname: string | undefined): number | boolean | string | undefined {
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'object') return JSON.stringify(v);
  return castFilterValue(String(v), typname) ?? String(v);
}

function compare(a: number | boolean | string, b: number | boolean | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  const sa = String(a);
  const sb = String(b);
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/** A filter compiled against the column's type; returns true, false, or null (SQL unknown). */
export type CompiledFilter = (row: Record<string, unknown>) => boolean | null;

/**
 * Test hook: called with every row a compiled filter is evaluated on, before it is. The feed
 * only evaluates filters on what a subscriber may see (after its RLS check), so a row of
 * another tenant must never reach it.
 */
export const filterProbe: { onEvaluate?: (column: string, row: Record<string, unknown>) => void } = {};

/**
 * Compiles a filter for a column of the given type. Throws with Realtime's message when the
 * value does not fit the column or an `in` list is too long (checked at join, as
 * realtime.subscription_check_filters does). Evaluating it costs one comparison (`in`: at most
 * MAX_IN_VALUES), each linear in the two values' lengths.
 */
export function compileFilter(f: ColumnFilter, typname: string | undefined): CompiledFilter {
  const test = compileOp(f, typname);
  return (row) => {
    filterProbe.onEvaluate?.(f.column, row);
    if (!(f.column in row)) return true; // Realtime joins filters to the record's columns: absent ones pass
    return test(row[f.column]);
  };
}

const CMP: Record<Exclude<FilterOp, 'in'>, (c: number) => boolean> = {
  eq: (c) => c === 0,
  neq: (c) => c !== 0,
  lt: (c) => c < 0,
  lte: (c) => c <= 0,
  gt: (c) => c > 0,
  gte: (c) => c >= 0,
};

function compileOp(f: ColumnFilter, typname: string | undefined): (v: unknown) => boolean | null {
  const cast = (value: string) => {
    const c = castFilterValue(value, typname);
    if (c === undefined) throw new Error(`invalid input syntax for type ${typname}: "${value}"`);
    return c;
  };
  if (f.op === 'in') {
    const elements = parseArrayLiteral(f.value);
    if (elements.length > MAX_IN_VALUES) throw new Error(`ERROR P0001 (raise_exception) too many values for \`in\` filter. Maximum ${MAX_IN_VALUES}`);
    const list = elements.map(cast);
    return (v) => {
      const a = castRowValue(v, typname);
      return a === undefined ? null : list.some((b) => compare(a, b) === 0);
    };
  }
  const ok = CMP[f.op];
  if (!ok) throw new Error(`unsupported filter operator ${f.op}`);
  const b = cast(f.value);
  return (v) => {
    const a = castRowValue(v, typname);
    return a === undefined ? null : ok(compare(a, b));
  };
}
