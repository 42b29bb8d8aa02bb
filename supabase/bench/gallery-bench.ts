/**
 * The gallery read through the local PostgREST (`/rest/v1`) against the same SQL run
 * directly, measured in the same run, on PGlite (in memory) and on PostgreSQL (a throw-away
 * server, or BENCH_DATABASE_URL naming an empty database). One signed-in user owns
 * 100,000 tasks (a second user some more); the query is the one the front-end gateways send:
 *
 *   select=id,type,prompt,image_url,favorite,created_at&email=eq.E&image_url=not.is.null
 *   &or=(type.in.(...),type.like.upscale*)&order=created_at.desc,id.desc&limit=25
 *   [&created_at=lte.TS&or=(created_at.lt.TS,id.lt.ID)]   (keyset: the page after a cursor)
 *
 * Figures (medians of --runs calls, after a warm-up; the offset page: of at most 9):
 *   rest_first_ms       first page over HTTP with the user's JWT
 *   sql_rls_first_ms    the SQL the REST layer runs, as `authenticated` with the same claims
 *                       set in one statement, in one transaction (RLS applies)
 *   sql_first_ms        the same SQL as the table owner, no transaction (no RLS)
 *   rest_deep_keyset_ms the page after item 50,000 by keyset over HTTP
 *   rest_deep_offset_ms the same page by offset=50000 over HTTP (the old way, for reference)
 *
 *   pnpm --dir supabase bench:gallery [--tasks 100000] [--runs 40] [--depth 50000] [--databases pglite,postgres]
 *
 * Prints one JSON document on stdout.
 */
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { migrate, openPglite, openPostgres, type Db } from '../src/db/index.ts';
import { signJwt } from '../src/keys.ts';
import { parseQuery, planRead, type RestRequest } from '../src/rest/operations.ts';
import { getSchemaCache } from '../src/rest/schema-cache.ts';
import { median, openBenchDatabase, seedGallery, startClient, startOwnServices } from './bench-support.ts';

const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '100000' },
    runs: { type: 'string', default: '40' },
    depth: { type: 'string', default: '50000' },
    databases: { type: 'string', default: 'pglite,postgres' },
  },
});
const taskCount = Number(values.tasks);
const runs = Number(values.runs);
const depth = Number(values.depth);

const SELECT = 'id,type,prompt,image_url,favorite,created_at';
const TYPES = '(type.in.(imagine,variation,reroll),type.like.upscale*)';

function galleryQuery(email: string, cursor?: { ts: string; id: string }, offset?: number): URLSearchParams {
  const q = new URLSearchParams();
  q.append('select', SELECT);
  q.append('email', `eq.${email}`);
  q.append('image_url', 'not.is.null');
  q.append('or', TYPES);
  if (cursor) {
    q.append('created_at', `lte.${cursor.ts}`);
    q.append('or', `(created_at.lt.${cursor.ts},id.lt.${cursor.id})`);
  }
  q.append('order', 'created_at.desc,id.desc');
  if (offset) q.append('offset', String(offset));
  q.append('limit', '25');
  return q;
}

/**
 * Medians of `runs` calls of each measure, after a warm-up. The measures take turns (one
 * call of each per round), so a busy machine slows them all alike and the ratios hold.
 */
async function timeAll<K extends string>(
  measures: Record<K, () => Promise<unknown>>,
  n = runs,
  warmUp = 5,
): Promise<{ median: Record<K, number>; min: Record<K, number> }> {
  const names = Object.keys(measures) as K[];
  const samples = new Map<K, number[]>(names.map((n) => [n, []]));
  for (let round = -warmUp; round < n; round++) {
    for (const name of names) {
      const t0 = performance.now();
      const own = await measures[name]();
      if (round >= 0) samples.get(name)?.push(typeof own === 'number' ? own : performance.now() - t0);
    }
  }
  const pick = (f: (xs: number[]) => number) =>
    Object.fromEntries(names.map((n) => [n, Math.round(f(samples.get(n) ?? []) * 1000) / 1000])) as Record<K, number>;
  return { median: pick(median), min: pick((xs) => Math.min(...xs)) };
}

const round = (x: number) => Math.round(x * 100) / 100;

async function benchOne(kind: 'pglite' | 'postgres', db: Db) {
  await migrate(db, { local: true });
  const { owner } = await seedGallery(db, taskCount);
  const services = await startOwnServices(db);
  const { config } = services;
  const base = `${services.origin}/rest/v1/tasks`;
  const claims = { sub: owner.id, role: 'authenticated', aud: 'authenticated', email: owner.email, exp: Math.floor(Date.now() / 1000) + 3600 };
  const jwt = await signJwt(claims, config.jwtSecret);
  const headers = { apikey: config.anonKey, Authorization: `Bearer ${jwt}` };

  const client = startClient();
  /** One GET through the client thread; answers the page and how long the client waited. */
  async function restTimed(q: URLSearchParams): Promise<{ rows: { id: string; created_at: string }[]; ms: number }> {
    const r = await client.get(`${base}?${q}`, headers);
    if (r.status !== 200) throw new Error(`REST ${r.status}: ${r.body}`);
    return { rows: JSON.parse(r.body), ms: r.ms };
  }
  const rest = async (q: URLSearchParams) => (await restTimed(q)).rows;
  const restMs = async (q: URLSearchParams) => (await restTimed(q)).ms;

  // the SQL the REST layer runs for the first page
  const table = (await getSchemaCache(db)).tables.get('tasks');
  if (!table) throw new Error('no tasks table in the schema cache');
  const first = galleryQuery(owner.email);
  const req: RestRequest = { method: 'GET', query: first, prefer: new Map(), single: false };
  const plan = planRead(req, table, parseQuery(first, 'tasks'));
  const sql = plan.sql as string;
  const asUser = `select set_config('role', 'authenticated', true), set_config('request.jwt.claims', $1, true)`;
  const claimsText = JSON.stringify(claims);

  // the cursor: the row at 0-based position depth-1, as the REST layer renders it (microseconds kept)
  const all = await db.query<{ id: string; ts: string }>(
    `select id, to_json(created_at) #>> '{}' as ts from public.tasks
      where email = $1 and image_url is not null and (type = any($2) or type like 'upscale%')
      order by created_at desc, id desc offset $3 limit 1`,
    [owner.email, ['imagine', 'variation', 'reroll'], depth - 1],
  );
  const cursor = { ts: all.rows[0].ts, id: all.rows[0].id };
  const keyset = galleryQuery(owner.email, cursor);
  const offset = galleryQuery(owner.email, undefined, depth);

  // the three ways agree on the page
  const firstRows = await rest(first);
  const viaSql = await db.transaction(async (tx) => {
    await tx.query(asUser, [claimsText]);
    return tx.query<{ body: string }>(sql, plan.params);
  });
  const deepKeyset = await rest(keyset);
  const deepOffset = await rest(offset);
  if (JSON.stringify(JSON.parse(viaSql.rows[0].body)) !== JSON.stringify(firstRows)) throw new Error('REST and SQL disagree on the first page');
  if (firstRows.length !== 25 || JSON.stringify(deepKeyset) !== JSON.stringify(deepOffset)) throw new Error('keyset and offset pages disagree');

  const t = await timeAll({
    restFirst: () => restMs(first),
    sqlRls: () =>
      db.transaction(async (tx) => {
        await tx.query(asUser, [claimsText]);
        await tx.query(sql, plan.params);
      }),
    sqlPlain: () => db.query(sql, plan.params),
    restKeyset: () => restMs(keyset),
    // the same server answering `GET /` (no database): what HTTP alone costs here
    httpFloor: async () => (await client.get(base.replace(/\/rest\/v1\/tasks$/, '/'), headers)).ms,
  });
  // the offset page is slow by design: fewer calls, so the bench stays short
  const { restOffset } = (await timeAll({ restOffset: () => restMs(offset) }, Math.min(runs, 9), 1)).median;
  const { restFirst, sqlRls, sqlPlain, restKeyset, httpFloor } = t.median;

  await client.stop();
  await services.stop();
  return {
    kind,
    tasks: taskCount,
    depth,
    runs,
    rest_first_ms: restFirst,
    sql_rls_first_ms: sqlRls,
    sql_first_ms: sqlPlain,
    rest_deep_keyset_ms: restKeyset,
    rest_deep_offset_ms: restOffset,
    http_floor_ms: httpFloor,
    first_page_rest_over_sql_rls: round(restFirst / sqlRls),
    // REST's own cost beyond the HTTP floor, against the SQL
    first_page_rest_minus_http_over_sql_rls: round((restFirst - httpFloor) / sqlRls),
    first_page_rest_over_sql: round(restFirst / sqlPlain),
    deep_over_first: round(restKeyset / restFirst),
    deep_offset_over_first: round(restOffset / restFirst),
    deep_offset_over_keyset: round(restOffset / restKeyset),
    // the fastest call of each: what the code costs when nothing else competes for the CPU
    min_ms: t.min,
    min_first_page_rest_over_sql_rls: round(t.min.restFirst / t.min.sqlRls),
    min_deep_over_first: round(t.min.restKeyset / t.min.restFirst),
    targets: { first_page_rest_over_sql_rls: 1.5, deep_over_first: 1.5 },
  };
}

async function main() {
  const kinds = values.databases.split(',').map((s) => s.trim()) as ('pglite' | 'postgres')[];
  const results = [];
  for (const kind of kinds) {
    if (kind === 'pglite') {
      const db = await openPglite();
      try {
        results.push(await benchOne(kind, db));
      } finally {
        await db.close();
      }
    } else {
      const database = await openBenchDatabase('gallery_bench');
      try {
        const db = await openPostgres(database.url, { max: 10, log: () => {} });
        try {
          results.push(await benchOne(kind, db));
        } finally {
          await db.close();
        }
      } finally {
        await database.stop();
      }
    }
  }
  process.stdout.write(`${JSON.stringify({ bench: 'gallery', results }, null, 2)}\n`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
