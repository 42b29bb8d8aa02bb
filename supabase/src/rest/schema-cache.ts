import type { Db } from '../db/index.ts';

/**
 * PostgREST's schema cache, for the one exposed schema: relations with their columns and
 * primary key, and callable functions with their arguments. Loaded on first use; call
 * invalidateSchemaCache after migrations (PostgREST's `NOTIFY pgrst, 'reload schema'`).
 */

export const EXPOSED_SCHEMA = 'public';

export interface TableInfo {
  name: string;
  columns: Set<string>;
  primaryKey: string[];
}

interface FunctionArg {
  name: string;
  /** format_type() of the argument, from the catalog (safe to splice into SQL). */
  type: string;
  hasDefault: boolean;
}

type ReturnShape = 'void' | 'scalar' | 'row' | 'setof-scalar' | 'setof-rows';

export interface FunctionInfo {
  name: string;
  /** Input arguments in declaration order. */
  args: FunctionArg[];
  returns: ReturnShape;
  /** STABLE / IMMUTABLE functions run in a read-only transaction. */
  readOnly: boolean;
}

export interface SchemaCache {
  tables: Map<string, TableInfo>;
  functions: Map<string, FunctionInfo[]>;
}

const caches = new WeakMap<Db, Promise<SchemaCache>>();

/** The cached schema of this database (loaded on first call). */
export function getSchemaCache(db: Db): Promise<SchemaCache> {
  let cache = caches.get(db);
  if (!cache) {
    cache = loadSchemaCache(db);
    caches.set(db, cache);
    cache.catch(() => caches.delete(db));
  }
  return cache;
}

/** Forget the cached schema; the next request reloads it. */
export function invalidateSchemaCache(db: Db): void {
  caches.delete(db);
}

interface ColumnRow {
  table_name: string;
  columns: string[] | null;
  primary_key: string[] | null;
}

interface FunctionRow {
  name: string;
  ret_set: boolean;
  ret_void: boolean;
  ret_composite: boolean;
  volatility: string;
  n_defaults: number;
  args: { name: string | null; type: string; mode: string }[] | null;
}

async function loadSchemaCache(db: Db): Promise<SchemaCache> {
  const relations = await db.query<ColumnRow>(
    `select c.relname::text as table_name,
            (select json_agg(a.attname::text order by a.attnum) from pg_attribute a
              where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped) as columns,
            (select json_agg(a.attname::text order by k.ord)
               from pg_index i
               cross join unnest(i.indkey::int2[]) with ordinality k(attnum, ord)
               join pg_attribute a on a.attrelid = c.oid and a.attnum = k.attnum
              where i.indrelid = c.oid and i.indisprimary) as primary_key
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relkind in ('r', 'v', 'm', 'f', 'p')`,
    [EXPOSED_SCHEMA],
  );
  const functions = await db.query<FunctionRow>(
    `select p.proname::text as name, p.proretset as ret_set,
            p.prorettype = 'void'::regtype as ret_void,
            (t.typtype = 'c' or p.prorettype = 'record'::regtype) as ret_composite,
            p.provolatile::text as volatility, p.pronargdefaults::int as n_defaults,
            (select json_agg(json_build_object('name', a.name, 'type', format_type(a.type, null), 'mode', a.mode) order by a.ord)
               from unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
                           coalesce(p.proargmodes, array_fill('i'::"char", array[p.pronargs::int])::"char"[]),
                           p.proargnames) with ordinality a(type, mode, name, ord)) as args
       from pg_proc p
       join pg_namespace n on n.oid = p.pronamespace
       join pg_type t on t.oid = p.prorettype
      where n.nspname = $1 and p.prokind = 'f' and p.prorettype <> 'trigger'::regtype`,
    [EXPOSED_SCHEMA],
  );
  const tables = new Map<string, TableInfo>();
  for (const r of relations.rows) {
    tables.set(r.table_name, { name: r.table_name, columns: new Set(r.columns ?? []), primaryKey: r.primary_key ?? [] });
  }
  const fns = new Map<string, FunctionInfo[]>();
  for (const r of functions.rows) {
    const inputs = (r.args ?? []).filter((a) => a.mode === 'i' || a.mode === 'b' || a.mode === 'v');
    const args = inputs.map((a, i) => ({ name: a.name ?? '', type: a.type, hasDefault: i >= inputs.length - r.n_defaults }));
    const returns: ReturnShape = r.ret_void ? 'void' : r.ret_set ? (r.ret_composite ? 'setof-rows' : 'setof-scalar') : r.ret_composite ? 'row' : 'scalar';
    const info: FunctionInfo = { name: r.name, args, returns, readOnly: r.volatility !== 'v' };
    fns.set(r.name, [...(fns.get(r.name) ?? []), info]);
  }
  return { tables, functions: fns };
}
