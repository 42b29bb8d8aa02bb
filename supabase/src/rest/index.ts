import { Hono, type Context } from 'hono';
import type { LocalContext } from '../context.ts';
import { isPgError, type Db, type QueryResult } from '../db/index.ts';
import { requireApiKey } from '../gateway.ts';
import { authenticate, type ApiRole, type RequestAuth } from './auth.ts';
import { bodyError, fromPgError, RestError } from './errors.ts';
import { parsePrefer, parseRangeHeader } from './grammar.ts';
import {
  argNames,
  chooseOverload,
  functionNotFound,
  JSON_TYPE,
  OBJECT_TYPE,
  parseQuery,
  planDelete,
  planInsert,
  planRead,
  planRpc,
  planUpdate,
  type Plan,
  type Reply,
  type RestRequest,
} from './operations.ts';
import { EXPOSED_SCHEMA, getSchemaCache, invalidateSchemaCache, type SchemaCache } from './schema-cache.ts';

export { invalidateSchemaCache } from './schema-cache.ts';

/** Supabase's per-role statement_timeout (§4.1); service_role keeps the server's. */
const STATEMENT_TIMEOUT: Partial<Record<ApiRole, string>> = { anon: '3s', authenticated: '8s' };

/**
 * PostgREST's first statement of every request (Query/PreQuery.hs): transaction-local
 * search path, role, JWT claims and request info, so nothing leaks to the next request
 * (PGlite serves everyone on one connection). Reads also make the transaction read only
 * here (allowed after its first statement; only the way back to read-write is not), so it
 * costs no statement of its own.
 */
const PRE_REQUEST_SETTINGS = `select set_config('search_path', 'public, extensions', true),
  set_config('role', $1, true),
  set_config('request.jwt.claims', $2, true),
  set_config('request.method', $3, true),
  set_config('request.path', $4, true),
  set_config('request.headers', $5, true),
  set_config('statement_timeout', coalesce($6, current_setting('statement_timeout')), true)`;
const PRE_REQUEST = { write: PRE_REQUEST_SETTINGS, read: `${PRE_REQUEST_SETTINGS},\n  set_config('transaction_read_only', 'on', true)` };

type Target = { kind: 'table' | 'rpc'; name: string };

/** Looks something up in the schema cache, reloading once on a miss (migrations may have run since). */
async function lookup<T>(db: Db, find: (cache: SchemaCache) => T | undefined): Promise<T | undefined> {
  const found = find(await getSchemaCache(db));
  if (found !== undefined) return found;
  invalidateSchemaCache(db);
  return find(await getSchemaCache(db));
}

/** Accept-Profile (reads) / Content-Profile (writes) may only name the exposed schema. */
function checkProfile(c: Context, method: string) {
  const header = method === 'GET' || method === 'HEAD' ? 'accept-profile' : 'content-profile';
  const profile = c.req.header(header);
  if (profile !== undefined && profile !== EXPOSED_SCHEMA) {
    throw new RestError(406, 'PGRST106', `Invalid schema: ${profile}`, null, `Only the following schemas are exposed: ${EXPOSED_SCHEMA}`);
  }
}

async function readBody(c: Context, method: string): Promise<unknown> {
  if (method === 'GET' || method === 'HEAD' || method === 'DELETE') return undefined;
  const text = await c.req.text();
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw bodyError('Empty or invalid json');
  }
}

/** The columns a write names: `columns=`, else the keys of the (first) body object. */
function writtenColumns(req: RestRequest, columns: string[] | undefined): string[] {
  if (req.method !== 'POST' && req.method !== 'PATCH') return [];
  if (columns) return columns;
  const first: unknown = Array.isArray(req.body) ? req.body[0] : req.body;
  return typeof first === 'object' && first !== null ? Object.keys(first) : [];
}

async function buildPlan(ctx: LocalContext, target: Target, req: RestRequest): Promise<Plan> {
  if (target.kind === 'table') {
    const parts = parseQuery(req.query, target.name);
    // a migration may have added the table, or the columns a write names, since the cache was loaded
    const named = writtenColumns(req, parts.columns);
    const table =
      (await lookup(ctx.db, (s) => {
        const t = s.tables.get(target.name);
        return t && named.every((n) => t.columns.has(n)) ? t : undefined;
      })) ?? (await getSchemaCache(ctx.db)).tables.get(target.name);
    if (!table) throw new RestError(404, 'PGRST205', `Could not find the table '${EXPOSED_SCHEMA}.${target.name}' in the schema cache`);
    if (req.method === 'GET' || req.method === 'HEAD') return planRead(req, table, parts);
    if (req.method === 'POST') return planInsert(req, table, parts);
    if (req.method === 'PATCH') return planUpdate(req, table, parts);
    return planDelete(req, table, parts);
  }
  const overloads = (await lookup(ctx.db, (s) => s.functions.get(target.name))) ?? [];
  const parts = parseQuery(req.query, target.name, req.method === 'POST' ? new Set() : argNames(overloads));
  let args: Record<string, unknown>;
  if (req.method === 'POST') {
    if (req.body !== undefined && (typeof req.body !== 'object' || req.body === null || Array.isArray(req.body))) throw bodyError('Empty or invalid json');
    args = (req.body ?? {}) as Record<string, unknown>;
  } else {
    args = parts.args;
  }
  const chosen = chooseOverload(overloads, Object.keys(args), req.method === 'POST');
  if (!chosen) throw functionNotFound(target.name, Object.keys(args), overloads);
  return planRpc(req, chosen.fn, chosen.singleJson, args, parts);
}

/**
 * Runs the plan in one transaction as the request's role (PostgREST's transaction model).
 * A read sends its settings and its query together (Db.pipeline: one round trip, no
 * BEGIN/COMMIT); a write runs in transaction(), since `finish` may still roll it back.
 */
async function execute(ctx: LocalContext, c: Context, auth: RequestAuth, target: Target, plan: Plan): Promise<Reply> {
  const { sql } = plan;
  if (sql === undefined) return plan.finish({ rows: [], fields: [], rowCount: 0 });
  const requestHeaders: Record<string, string> = {};
  c.req.raw.headers.forEach((value, key) => {
    requestHeaders[key] = value;
  });
  const path = target.kind === 'rpc' ? `/rpc/${target.name}` : `/${target.name}`;
  const settings = [auth.role, JSON.stringify(auth.claims), c.req.method, path, JSON.stringify(requestHeaders), STATEMENT_TIMEOUT[auth.role] ?? null];
  if (plan.readOnly) {
    const [, result] = await ctx.db.pipeline([
      { sql: PRE_REQUEST.read, params: settings },
      { sql, params: plan.params },
    ]);
    return plan.finish(result);
  }
  return ctx.db.transaction(async (tx) => {
    await tx.query(PRE_REQUEST.write, settings);
    const result: QueryResult = await tx.query(sql, plan.params);
    return plan.finish(result);
  });
}

function send(c: Context, reply: Reply): Response {
  const status = reply.status as 200;
  return c.req.method === 'HEAD' || reply.body === null ? c.body(null, status, reply.headers) : c.body(reply.body, status, reply.headers);
}

function sendError(ctx: LocalContext, c: Context, e: unknown, role: ApiRole): Response {
  let err: RestError;
  if (e instanceof RestError) err = e;
  else if (isPgError(e)) err = fromPgError(e, role);
  else {
    ctx.log(`rest: unexpected error on ${c.req.method} ${c.req.path}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    err = new RestError(500, 'PGRST000', 'Internal server error');
  }
  return send(c, { status: err.status, body: JSON.stringify(err.body), headers: { 'Content-Type': JSON_TYPE, ...err.headers } });
}

async function handle(ctx: LocalContext, c: Context, target: Target): Promise<Response> {
  const method = c.req.method;
  let role: ApiRole = 'anon';
  try {
    const allowed = target.kind === 'rpc' ? ['GET', 'HEAD', 'POST'] : ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'];
    if (!allowed.includes(method)) throw new RestError(405, 'PGRST117', `Unsupported HTTP method: ${method}`);
    const auth = await authenticate(ctx.config, c.req.header('authorization'), c.req.header('apikey'));
    role = auth.role;
    checkProfile(c, method);
    const req: RestRequest = {
      method,
      query: new URL(c.req.url).searchParams,
      prefer: parsePrefer([c.req.header('prefer')]),
      single: (c.req.header('accept') ?? '').includes(OBJECT_TYPE),
      range: method === 'GET' || method === 'HEAD' ? parseRangeHeader(c.req.header('range')) : undefined,
      body: await readBody(c, method),
    };
    const plan = await buildPlan(ctx, target, req);
    return send(c, await execute(ctx, c, auth, target, plan));
  } catch (e) {
    return sendError(ctx, c, e, role);
  }
}

/** The local PostgREST (`/rest/v1`): tables and functions of the public schema, under RLS. */
export function createRestApp(ctx: LocalContext): Hono {
  const app = new Hono();
  app.use('*', requireApiKey());
  app.all('/rpc/:fn', (c) => handle(ctx, c, { kind: 'rpc', name: c.req.param('fn') }));
  app.all('/:table', (c) => handle(ctx, c, { kind: 'table', name: c.req.param('table') }));
  return app;
}
