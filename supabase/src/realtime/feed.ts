import type { Db } from '../db/index.ts';
import type { Catalog, SubscriberRole, TableMeta } from './catalog.ts';
import type { CompiledFilter } from './filters.ts';

const NOTIFY_CHANNEL = 'realtime_local';
// Queue rows older than this are gone; a consumer that far behind has lost its socket anyway.
const RETAIN = '1 minute';
const PRUNE_EVERY_MS = 30_000;

type ChangeType = 'INSERT' | 'UPDATE' | 'DELETE';

export interface ActiveBinding {
  id: number;
  event: '*' | ChangeType;
  schema: string;
  table: string;
  /** Compiled per matching table ("schema.table"), resolved at join like Realtime's entities. */
  filters: Map<string, CompiledFilter[]>;
}

/** A joined channel with postgres_changes bindings, as the feed sees it. */
export interface Subscriber {
  role: SubscriberRole;
  /** JSON of the JWT claims, set as request.jwt.claims for the RLS check. */
  claimsJson: string;
  bindings: ActiveBinding[];
  /** Sends the fast-lane `postgres_changes` message. */
  push(payload: { ids: number[]; data: ChangeData }): void;
}

export interface ChangeData {
  schema: string;
  table: string;
  commit_timestamp: string;
  type: ChangeType;
  columns: { name: string; type: string }[];
  record: Record<string, unknown>;
  old_record: Record<string, unknown>;
  errors: null;
}

interface ChangeRow {
  id: number;
  op: ChangeType;
  schema_name: string;
  table_name: string;
  new_row: Record<string, unknown> | null;
  old_row: Record<string, unknown> | null;
  commit_timestamp: string;
}

const READ_SQL = `
select id, op, schema_name::text, table_name::text, new_row, old_row,
  to_char(committed_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as commit_timestamp
from _realtime_local.changes
where txid = any($1::bigint[])
order by array_position($1::bigint[], txid), id`;

/**
 * Reads the change queue the local SQL's triggers fill and fans each change out to the
 * subscribers it matches, in commit order: notifications (one per transaction) arrive in
 * commit order and are processed one batch at a time by a single pump.
 */
export class ChangeFeed {
  readonly subscribers = new Set<Subscriber>();
  private pending: number[] = [];
  private pumping?: Promise<void>;
  private lastPrune = 0;
  private unlisten?: () => Promise<void>;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly catalog: Catalog,
    private readonly log: (line: string) => void,
  ) {}

  async start() {
    // After a dropped LISTEN connection came back: a DDL notice may have been missed, so the
    // table cache starts over. Row changes committed while it was away are not replayed.
    this.unlisten = await this.db.listen(NOTIFY_CHANNEL, (payload) => this.onNotify(payload), {
      onReconnect: () => {
        this.log('realtime: change feed reconnected; changes committed while it was away were not delivered');
        this.catalog.invalidate();
      },
    });
    if (this.closed) return this.unlisten();
    const { rows } = await this.db.query<{ has: boolean }>(`select exists (select 1 from pg_event_trigger where evtname = '_realtime_local_ddl') as has`);
    // with the DDL event trigger the cache is invalidated exactly; without it, it expires
    this.catalog.ttlMs = rows[0]?.has ? 10 * 60_000 : 5_000;
    await this.prune();
  }

  async close() {
    this.closed = true;
    this.pending = [];
    await this.unlisten?.();
    await this.pumping;
  }

  private onNotify(payload: string) {
    if (this.closed) return;
    if (payload === 'ddl') {
      this.catalog.invalidate();
      return;
    }
    const txid = Number(payload);
    if (!Number.isSafeInteger(txid)) return;
    // nobody listening: the rows simply age out
    if (this.subscribers.size === 0) return;
    this.pending.push(txid);
    this.schedule();
  }

  private schedule() {
    if (this.pumping || this.closed) return;
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      // a notification that arrived while the pump was finishing
      if (this.pending.length > 0) this.schedule();
    });
  }

  private async pump() {
    while (this.pending.length > 0 && !this.closed) {
      const batch = this.pending.splice(0);
      try {
        const { rows } = await this.db.query<ChangeRow>(READ_SQL, [`{${batch.join(',')}}`]);
        for (const row of rows) {
          if (this.closed) return;
          await this.dispatch(row);
        }
      } catch (e) {
        this.log(`realtime: change dispatch failed: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    if (!this.closed && Date.now() - this.lastPrune > PRUNE_EVERY_MS) await this.prune();
  }

  private async prune() {
    this.lastPrune = Date.now();
    try {
      await this.db.query(`delete from _realtime_local.changes where committed_at < now() - interval '${RETAIN}'`);
    } catch (e) {
      this.log(`realtime: pruning the change queue failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  // Visibility first, filters last: a subscriber's filters only ever see what it would receive.
  // 1. Who subscribes to this table and event at all (no filter has run).
  // 2. The RLS check (INSERT/UPDATE on an RLS table) for all of them in one statement, and the
  //    columns each role may select (buildData).
  // 3. The filters, on the record the subscriber is sent (for a DELETE, its old_record).
  private async dispatch(change: ChangeRow) {
    const meta = await this.catalog.table(change.schema_name, change.table_name, { refreshOnMiss: true });
    if (!meta) return;
    const key = `${meta.schema}.${meta.name}`;
    const candidates: { sub: Subscriber; bindings: { id: number; filters: CompiledFilter[] }[] }[] = [];
    for (const sub of this.subscribers) {
      const bindings: { id: number; filters: CompiledFilter[] }[] = [];
      for (const b of sub.bindings) {
        if (b.event !== '*' && b.event !== change.op) continue;
        const filters = b.filters.get(key);
        if (filters) bindings.push({ id: b.id, filters });
      }
      if (bindings.length > 0) candidates.push({ sub, bindings });
    }
    if (candidates.length === 0) return;

    const checked = change.op !== 'DELETE' && meta.rls;
    let visible: Map<string, boolean> | undefined;
    if (checked) {
      if (meta.pk.length === 0) return; // cannot look the row up; Realtime errors ("no primary key")
      visible = await this.checkVisibility(
        meta,
        change.new_row ?? {},
        candidates.map((c) => c.sub),
      );
    }
    const dataByRole = new Map<SubscriberRole, ChangeData | null>();
    for (const { sub, bindings } of candidates) {
      if (!this.subscribers.has(sub)) continue; // left while the check ran
      if (visible && !visible.get(claimsKey(sub))) continue;
      let data = dataByRole.get(sub.role);
      if (data === undefined) {
        data = buildData(change, meta, sub.role);
        dataByRole.set(sub.role, data);
      }
      if (!data) continue;
      // Realtime filters on the new columns; for a DELETE there are only the old ones
      const row = change.op === 'DELETE' ? data.old_record : data.record;
      const ids: number[] = [];
      for (const b of bindings) if (b.filters.every((f) => f(row) === true)) ids.push(b.id);
      if (ids.length > 0) sub.push({ ids, data });
    }
  }

  // One statement answers for every distinct (role, claims) among the subscribers.
  private async checkVisibility(meta: TableMeta, record: Record<string, unknown>, subs: Subscriber[]) {
    const distinct = new Map<string, Subscriber>();
    for (const s of subs) distinct.set(claimsKey(s), s);
    const keys = [...distinct.keys()];
    const { rows } = await this.db.query<{ v: boolean[] | string }>(
      'select _realtime_local.visible_to($1::oid::regclass, $2::text[], $3::jsonb, $4::text[], $5::text[]) as v',
      [
        meta.oid,
        pgArray(meta.pk),
        JSON.stringify(record),
        pgArray(keys.map((k) => distinct.get(k)!.role)),
        pgArray(keys.map((k) => distinct.get(k)!.claimsJson)),
      ],
    );
    const v = rows[0]?.v;
    const flags = Array.isArray(v) ? v : [];
    return new Map(keys.map((k, i) => [k, flags[i] === true]));
  }
}

const claimsKey = (s: Subscriber) => `${s.role}\u0000${s.claimsJson}`;

// A text[] literal: every element double-quoted, backslashes and quotes escaped.
function pgArray(values: string[]) {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

function pick(row: Record<string, unknown> | null, names: string[]) {
  const out: Record<string, unknown> = {};
  if (!row) return out;
  for (const n of names) if (n in row) out[n] = row[n];
  return out;
}

/**
 * The `data` of a postgres_changes message as Realtime builds it for one role
 * (supabase-protocol.md §3.4), or null when the role may not read the primary key.
 */
function buildData(change: ChangeRow, meta: TableMeta, role: SubscriberRole): ChangeData | null {
  const cols = meta.columns.filter((c) => c.selectable[role]);
  const names = cols.map((c) => c.name);
  if (change.op !== 'DELETE' && meta.pk.some((k) => !meta.byName.get(k)?.selectable[role])) return null;
  const pkNames = names.filter((n) => meta.pk.includes(n));
  // the replica identity: the key columns, the whole row with REPLICA IDENTITY FULL; a
  // DELETE on an RLS table is never checked, so it only reveals the key
  const identity = meta.replicaFull && !(change.op === 'DELETE' && meta.rls) ? names : pkNames;
  return {
    schema: meta.schema,
    table: meta.name,
    commit_timestamp: change.commit_timestamp,
    type: change.op,
    columns: cols.map((c) => ({ name: c.name, type: c.type })),
    record: change.op === 'DELETE' ? {} : pick(change.new_row, names),
    old_record: change.op === 'INSERT' ? {} : pick(change.old_row, identity),
    errors: null,
  };
}
