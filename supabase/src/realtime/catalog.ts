import type { Db } from '../db/index.ts';

/** The API roles a subscriber's JWT may name; anything else is refused at join. */
export const SUBSCRIBER_ROLES = ['anon', 'authenticated', 'service_role'] as const;
export type SubscriberRole = (typeof SUBSCRIBER_ROLES)[number];

interface ColumnMeta {
  name: string;
  /** pg_type.typname, as Realtime reports it (`int8`, `_text`, …). */
  type: string;
  /** SELECT privilege per subscriber role (has_column_privilege). */
  selectable: Partial<Record<SubscriberRole, boolean>>;
}

export interface TableMeta {
  oid: number;
  schema: string;
  name: string;
  rls: boolean;
  replicaFull: boolean;
  pk: string[];
  columns: ColumnMeta[];
  byName: Map<string, ColumnMeta>;
}

const TABLES_SQL = `
select n.nspname::text as schema, c.relname::text as name, c.oid::int8 as oid,
  c.relrowsecurity as rls, c.relreplident = 'f' as replica_full,
  coalesce((
    select array_agg(a.attname::text order by k.ord)
    from pg_index i
    cross join lateral unnest(i.indkey::int2[]) with ordinality k(attnum, ord)
    join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.attnum
    where i.indrelid = c.oid and i.indisprimary
  ), '{}') as pk,
  coalesce((
    select json_agg(json_build_object(
      'name', a.attname, 'type', t.typname,
      'selectable', (
        select coalesce(json_object_agg(r.rolname, has_column_privilege(r.oid, c.oid, a.attnum, 'SELECT')), '{}')
        from pg_roles r where r.rolname = any($1::text[]))
    ) order by a.attnum)
    from pg_attribute a join pg_type t on t.oid = a.atttypid
    where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
  ), '[]') as columns
from pg_publication_tables p
join pg_namespace n on n.nspname = p.schemaname
join pg_class c on c.relnamespace = n.oid and c.relname = p.tablename
where p.pubname = 'supabase_realtime'`;

/**
 * Metadata of the tables in the supabase_realtime publication (membership, keys, columns and
 * their privileges), loaded in one query and kept until the schema changes: the local SQL's
 * event trigger notifies every DDL; without it (not a superuser) entries expire quickly.
 */
export class Catalog {
  private tables?: Promise<Map<string, TableMeta>>;
  private loadedAt = 0;
  ttlMs = 5_000;

  constructor(private readonly db: Db) {}

  invalidate() {
    this.tables = undefined;
  }

  all(): Promise<Map<string, TableMeta>> {
    if (!this.tables || Date.now() - this.loadedAt > this.ttlMs) {
      this.loadedAt = Date.now();
      const loading = this.load();
      this.tables = loading;
      // a failed load must not stick
      loading.catch(() => {
        if (this.tables === loading) this.tables = undefined;
      });
    }
    return this.tables;
  }

  /** With refreshOnMiss, an unknown table reloads the cache once (a DDL notification may still be on its way). */
  async table(schema: string, name: string, opts: { refreshOnMiss?: boolean } = {}): Promise<TableMeta | undefined> {
    const key = `${schema}.${name}`;
    const hit = (await this.all()).get(key);
    if (hit || !opts.refreshOnMiss) return hit;
    this.invalidate();
    return (await this.all()).get(key);
  }

  private async load() {
    type Row = { schema: string; name: string; oid: number; rls: boolean; replica_full: boolean; pk: string[]; columns: ColumnMeta[] | string };
    const { rows } = await this.db.query<Row>(TABLES_SQL, [`{${SUBSCRIBER_ROLES.join(',')}}`]);
    const out = new Map<string, TableMeta>();
    for (const r of rows) {
      const columns: ColumnMeta[] = typeof r.columns === 'string' ? JSON.parse(r.columns) : r.columns;
      out.set(`${r.schema}.${r.name}`, {
        oid: Number(r.oid),
        schema: r.schema,
        name: r.name,
        rls: r.rls,
        replicaFull: r.replica_full,
        pk: r.pk,
        columns,
        byName: new Map(columns.map((c) => [c.name, c])),
      });
    }
    return out;
  }
}
