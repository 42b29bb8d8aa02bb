import type { QueryResult } from '../db/index.ts';
import { bodyError, RestError } from './errors.ts';
import {
  embeddedPrefix,
  isLogicKey,
  parseCount,
  parseFilter,
  parseLogic,
  parseNameList,
  parseOrder,
  parseSelect,
  type Condition,
  type OrderTerm,
  type SelectItem,
} from './grammar.ts';
import { EXPOSED_SCHEMA, type FunctionInfo, type TableInfo } from './schema-cache.ts';
import { ident, Params, qualified, renderOrder, renderWhere, rowsSql } from './sql.ts';

/**
 * Each request becomes a Plan: one statement plus how to turn its result into PostgREST's
 * response. `finish` runs inside the transaction, so throwing there rolls the writes back
 * (PostgREST does the same when `.single()` finds the wrong number of rows).
 */

/** Supabase's db-max-rows: reads are silently capped. */
const MAX_ROWS = 1000;
export const JSON_TYPE = 'application/json; charset=utf-8';
export const OBJECT_TYPE = 'application/vnd.pgrst.object+json';

export interface Reply {
  status: number;
  body: string | null;
  headers: Record<string, string>;
}

export interface Plan {
  readOnly: boolean;
  /** Absent when there is nothing to run (PATCH with an empty object). */
  sql?: string;
  params: string[];
  finish(result: QueryResult): Reply;
}

/** The request as the operations need it. */
export interface RestRequest {
  method: string;
  query: URLSearchParams;
  prefer: Map<string, string>;
  /** Accept asks for one object (`.single()`). */
  single: boolean;
  /** From the Range header (GET/HEAD). */
  range?: { offset: number; limit?: number };
  /** The parsed JSON body (writes, RPC POST); undefined when empty. */
  body?: unknown;
}

export interface QueryParts {
  select: SelectItem[];
  conditions: Condition[];
  order: OrderTerm[];
  limit?: number;
  offset?: number;
  columns?: string[];
  onConflict?: string[];
  /** RPC GET arguments (query keys naming a function argument). */
  args: Record<string, string>;
}

/** Splits the query string into PostgREST's reserved parameters and filters. */
export function parseQuery(query: URLSearchParams, relation: string, argNames: Set<string> = new Set()): QueryParts {
  const parts: QueryParts = { select: [{ kind: 'star' }], conditions: [], order: [], args: {} };
  for (const [key, value] of query) {
    if (key === 'select') parts.select = parseSelect(value, relation);
    else if (key === 'order') parts.order = parseOrder(value);
    else if (key === 'limit') parts.limit = parseCount('limit', value);
    else if (key === 'offset') parts.offset = parseCount('offset', value);
    else if (key === 'columns') parts.columns = parseNameList(value);
    else if (key === 'on_conflict') parts.onConflict = parseNameList(value);
    // the gateway's key may come as a query parameter; it is not a filter
    else if (key === 'apikey') continue;
    else if (isLogicKey(key)) parts.conditions.push(parseLogic(key, value));
    else if (argNames.has(key)) parts.args[key] = value;
    else if (embeddedPrefix(key) !== undefined) {
      const embed = embeddedPrefix(key);
      throw new RestError(
        400,
        'PGRST108',
        `'${embed}' is not an embedded resource in this request`,
        null,
        `Verify that '${embed}' is included in the 'select' query parameter.`,
      );
    } else parts.conditions.push(parseFilter(key, value));
  }
  return parts;
}

function singularError(rows: number): RestError {
  return new RestError(406, 'PGRST116', 'Cannot coerce the result to a single JSON object', `The result contains ${rows} rows`);
}

interface RowsResult {
  total: number | null;
  page: number;
  body: string;
  first: string | null;
}

function rowsOf(result: QueryResult): RowsResult {
  const r = result.rows[0] as { total: unknown; page: unknown; body: string; first: string | null };
  return { total: r.total === null ? null : Number(r.total), page: Number(r.page), body: r.body, first: r.first };
}

/** Content-Range and status of a page of rows (PostgREST RangeQuery.hs). */
function pageReply(rows: RowsResult, offset: number, single: boolean): Reply {
  const total = rows.total === null ? '*' : String(rows.total);
  const lower = offset;
  const upper = lower + rows.page - 1;
  const headers: Record<string, string> = { 'Content-Range': rows.page === 0 ? `*/${total}` : `${lower}-${upper}/${total}` };
  if (single) {
    if (rows.page !== 1) throw singularError(rows.page);
    return { status: 200, body: rows.first, headers: { ...headers, 'Content-Type': `${OBJECT_TYPE}; charset=utf-8` } };
  }
  let status = 200;
  if (rows.total !== null) {
    if (lower > rows.total) {
      throw new RestError(416, 'PGRST103', 'Requested range not satisfiable', `An offset of ${lower} was requested, but there are only ${rows.total} rows.`);
    }
    if (1 + upper - lower < rows.total) status = 206;
  }
  return { status, body: rows.body, headers: { ...headers, 'Content-Type': JSON_TYPE } };
}

function wantsCount(prefer: Map<string, string>): boolean {
  const c = prefer.get('count');
  // planned/estimated come from the planner in PostgREST; locally the exact count is cheap
  return c === 'exact' || c === 'planned' || c === 'estimated';
}

function pageBounds(req: RestRequest, parts: QueryParts): { limit: number; offset: number } {
  const offset = parts.offset ?? req.range?.offset ?? 0;
  const requested = parts.limit ?? req.range?.limit;
  return { offset, limit: Math.min(requested ?? MAX_ROWS, MAX_ROWS) };
}

export function planRead(req: RestRequest, table: TableInfo, parts: QueryParts): Plan {
  const p = new Params();
  const tbl = qualified(EXPOSED_SCHEMA, table.name);
  const { limit, offset } = pageBounds(req, parts);
  const sql = rowsSql(
    {
      cte: '',
      from: tbl,
      qualifier: tbl,
      select: parts.select,
      where: renderWhere(parts.conditions, tbl, p),
      order: renderOrder(parts.order, tbl, p),
      limit,
      offset,
      count: wantsCount(req.prefer),
    },
    p,
  );
  return { readOnly: true, sql, params: p.values, finish: (r) => pageReply(rowsOf(r), offset, req.single) };
}

function unknownColumn(table: TableInfo, column: string): RestError {
  return new RestError(400, 'PGRST204', `Could not find the '${column}' column of '${table.name}' in the schema cache`);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The reply of a write: rows (return=representation) or just the status. */
function writeFinish(req: RestRequest, representation: boolean, created: boolean): (r: QueryResult) => Reply {
  return (r): Reply => {
    if (representation) {
      const rows = rowsOf(r);
      if (req.single && rows.page !== 1) throw singularError(rows.page);
      const range = rows.page === 0 ? '*/*' : `0-${rows.page - 1}/*`;
      return req.single
        ? { status: created ? 201 : 200, body: rows.first, headers: { 'Content-Type': `${OBJECT_TYPE}; charset=utf-8`, 'Content-Range': range } }
        : { status: created ? 201 : 200, body: rows.body, headers: { 'Content-Type': JSON_TYPE, 'Content-Range': range } };
    }
    if (req.single && r.rowCount !== 1) throw singularError(r.rowCount);
    return { status: created ? 201 : 204, body: null, headers: { 'Content-Range': created ? '*/*' : r.rowCount ? `0-${r.rowCount - 1}/*` : '*/*' } };
  };
}

/** Wraps a DML statement so the changed rows come back like a read (select= applies). */
function withReturning(dml: string, tbl: string, representation: boolean, select: SelectItem[], p: Params): string {
  if (!representation) return dml;
  // without RETURNING (return=minimal) SELECT privileges and policies are not involved, as in PostgREST
  return rowsSql(
    { cte: `with pgrst_source as (${dml} returning ${tbl}.*) `, from: 'pgrst_source', qualifier: 'pgrst_source', select, where: '', order: '', count: false },
    p,
  );
}

export function planInsert(req: RestRequest, table: TableInfo, parts: QueryParts): Plan {
  const body = req.body;
  const rows = Array.isArray(body) ? body : [body];
  if (body === undefined || !rows.every(isPlainObject)) throw bodyError('Empty or invalid json');
  let columns = parts.columns;
  if (!columns) {
    const keys = Object.keys(rows[0] ?? {});
    const same = (o: Record<string, unknown>) => Object.keys(o).length === keys.length && keys.every((k) => k in o);
    if (!rows.every(same)) throw bodyError('All object keys must match');
    columns = keys;
  }
  for (const c of columns) if (!table.columns.has(c)) throw unknownColumn(table, c);
  const p = new Params();
  const tbl = qualified(EXPOSED_SCHEMA, table.name);
  const list = columns.map(ident).join(', ');
  let dml = `insert into ${tbl}${columns.length ? ` (${list})` : ''} select ${list} from pg_catalog.json_populate_recordset(null::${tbl}, ${p.add(JSON.stringify(rows))}::json)`;
  const resolution = req.prefer.get('resolution');
  const conflict = parts.onConflict ?? table.primaryKey;
  if ((resolution === 'merge-duplicates' || resolution === 'ignore-duplicates') && conflict.length) {
    const target = ` on conflict (${conflict.map(ident).join(', ')})`;
    dml +=
      resolution === 'ignore-duplicates' || !columns.length
        ? `${target} do nothing`
        : `${target} do update set ${columns.map((c) => `${ident(c)} = excluded.${ident(c)}`).join(', ')}`;
  }
  const representation = req.prefer.get('return') === 'representation';
  return { readOnly: false, sql: withReturning(dml, tbl, representation, parts.select, p), params: p.values, finish: writeFinish(req, representation, true) };
}

/** pg-safeupdate, which Supabase loads for the API: no unfiltered UPDATE/DELETE. */
function requireFilter(parts: QueryParts, verb: 'UPDATE' | 'DELETE') {
  if (!parts.conditions.length) throw new RestError(400, '21000', `${verb} requires a WHERE clause`);
}

export function planUpdate(req: RestRequest, table: TableInfo, parts: QueryParts): Plan {
  if (!isPlainObject(req.body)) throw bodyError('Empty or invalid json');
  requireFilter(parts, 'UPDATE');
  const keys = Object.keys(req.body);
  for (const k of keys) if (!table.columns.has(k)) throw unknownColumn(table, k);
  const representation = req.prefer.get('return') === 'representation';
  const finish = writeFinish(req, representation, false);
  if (!keys.length) {
    return { readOnly: true, params: [], finish: () => finish({ rows: [{ total: null, page: 0, body: '[]', first: null }], fields: [], rowCount: 0 }) };
  }
  const p = new Params();
  const tbl = qualified(EXPOSED_SCHEMA, table.name);
  const set = keys.map((k) => `${ident(k)} = pgrst_body.${ident(k)}`).join(', ');
  const body = `(select * from pg_catalog.json_populate_record(null::${tbl}, ${p.add(JSON.stringify(req.body))}::json)) pgrst_body`;
  const dml = `update ${tbl} set ${set} from ${body}${renderWhere(parts.conditions, tbl, p)}`;
  return { readOnly: false, sql: withReturning(dml, tbl, representation, parts.select, p), params: p.values, finish };
}

export function planDelete(req: RestRequest, table: TableInfo, parts: QueryParts): Plan {
  requireFilter(parts, 'DELETE');
  const p = new Params();
  const tbl = qualified(EXPOSED_SCHEMA, table.name);
  const dml = `delete from ${tbl}${renderWhere(parts.conditions, tbl, p)}`;
  const representation = req.prefer.get('return') === 'representation';
  return { readOnly: false, sql: withReturning(dml, tbl, representation, parts.select, p), params: p.values, finish: writeFinish(req, representation, false) };
}

/** All argument names the overloads of a function take (to tell RPC GET args from filters). */
export function argNames(overloads: FunctionInfo[]): Set<string> {
  return new Set(overloads.flatMap((f) => f.args.map((a) => a.name)).filter(Boolean));
}

const isJsonType = (t: string) => t === 'json' || t === 'jsonb';

/** Overload resolution by argument names, as PostgREST does; a single unnamed json(b) argument takes the whole body. */
export function chooseOverload(overloads: FunctionInfo[], keys: string[], wholeBody: boolean): { fn: FunctionInfo; singleJson: boolean } | undefined {
  for (const fn of overloads) {
    const names = new Set(fn.args.map((a) => a.name));
    if (keys.every((k) => names.has(k)) && fn.args.every((a) => a.hasDefault || keys.includes(a.name))) return { fn, singleJson: false };
  }
  if (wholeBody) {
    const fn = overloads.find((f) => f.args.length === 1 && f.args[0].name === '' && isJsonType(f.args[0].type));
    if (fn) return { fn, singleJson: true };
  }
  return undefined;
}

export function functionNotFound(name: string, keys: string[], overloads: FunctionInfo[]): RestError {
  const sorted = [...keys].sort();
  const withParams = sorted.length === 0 ? 'without parameters' : `with parameter${sorted.length > 1 ? 's' : ''} ${sorted.join(', ')}`;
  const hint = overloads.length ? `Perhaps you meant to call the function ${EXPOSED_SCHEMA}.${name}(${overloads[0].args.map((a) => a.name).join(', ')})` : null;
  return new RestError(
    404,
    'PGRST202',
    `Could not find the function ${EXPOSED_SCHEMA}.${name}(${sorted.join(', ')}) in the schema cache`,
    `Searched for the function ${EXPOSED_SCHEMA}.${name} ${withParams} or with a single unnamed json/jsonb parameter, but no matches were found in the schema cache.`,
    hint,
  );
}

export function planRpc(req: RestRequest, fn: FunctionInfo, singleJson: boolean, args: Record<string, unknown>, parts: QueryParts): Plan {
  const p = new Params();
  const readOnly = req.method === 'GET' || req.method === 'HEAD' || fn.readOnly;
  const used = fn.args.filter((a) => a.name in args);
  let callArgs = '';
  let argsFrom = '';
  if (singleJson) {
    callArgs = `${p.add(JSON.stringify(req.body ?? {}))}::${fn.args[0].type}`;
  } else if (used.length) {
    // json_to_record turns each JSON value into the argument's declared type
    argsFrom = `pg_catalog.json_to_record(${p.add(JSON.stringify(args))}::json) as pgrst_args(${used.map((a) => `${ident(a.name)} ${a.type}`).join(', ')})`;
    callArgs = used.map((a) => `${ident(a.name)} := pgrst_args.${ident(a.name)}`).join(', ');
  }
  const call = `${qualified(EXPOSED_SCHEMA, fn.name)}(${callArgs})`;
  const from = argsFrom ? ` from ${argsFrom}` : '';
  if (fn.returns === 'void') {
    return { readOnly, sql: `select ${call}${from}`, params: p.values, finish: () => ({ status: 204, body: null, headers: {} }) };
  }
  if (fn.returns === 'scalar') {
    return {
      readOnly,
      sql: `select pg_catalog.to_json(${call})::text as body${from}`,
      params: p.values,
      finish: (r) => ({ status: 200, body: (r.rows[0] as { body: string | null }).body ?? 'null', headers: { 'Content-Type': JSON_TYPE } }),
    };
  }
  const source =
    fn.returns === 'setof-scalar'
      ? `select ${call} as pgrst_scalar${from}`
      : `select pgrst_call.* from ${argsFrom ? `${argsFrom} cross join lateral ` : ''}${call} pgrst_call`;
  const { limit, offset } = pageBounds(req, parts);
  const sql = rowsSql(
    {
      cte: `with pgrst_source as materialized (${source}) `,
      from: 'pgrst_source',
      qualifier: 'pgrst_source',
      select: parts.select,
      where: renderWhere(parts.conditions, 'pgrst_source', p),
      order: renderOrder(parts.order, 'pgrst_source', p),
      limit,
      offset,
      count: wantsCount(req.prefer),
      scalarRows: fn.returns === 'setof-scalar',
    },
    p,
  );
  if (fn.returns === 'row') {
    return { readOnly, sql, params: p.values, finish: (r) => ({ status: 200, body: rowsOf(r).first ?? 'null', headers: { 'Content-Type': JSON_TYPE } }) };
  }
  return { readOnly, sql, params: p.values, finish: (r) => pageReply(rowsOf(r), offset, req.single) };
}
