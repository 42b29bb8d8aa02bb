/**
 * Soak under hostile traffic (issue 21, part 11): the production layout on PostgreSQL (the real
 * API entry point and two worker processes, spawned with `--import tsx`), jobs on a fake
 * midjourney-proxy upstream (I/O-bound, about a second each), webhooks to local receivers.
 *
 * Phases, in one run:
 *   1. idle capacity: a burst of tasks from four probe accounts, nothing else running; the
 *      workers' capacity is tasks settled per second from the first claim to the last settlement;
 *   2. idle: N well-behaved accounts (default 12) each submitting at a steady rate (open loop:
 *      each request leaves at its scheduled time whether or not the earlier ones answered, and
 *      latency counts from that time, so a stall is not hidden by coordinated omission), with
 *      healthy webhook receivers; the total rate is --load (default 0.6) × the measured capacity;
 *   3. flood: the same load, plus one account with no credits flooding submits (--flood-rate,
 *      default 64/s: 402, then 429) and one account (with credits, submitting at the
 *      well-behaved rate) whose task and test-event webhooks go to an address that accepts
 *      connections and never answers;
 *   4. flood capacity: the well-behaved load stops, the flood and the dead endpoint go on, and
 *      the same burst measures the workers' capacity again.
 * Then everything drains and every task acknowledged with 200 is checked: terminal, one hold,
 * a refund only when failed and at most once, each account's balance equal to its ledger.
 *
 * Figures: capacity and held tasks/s, the well-behaved accounts' submit and end-to-end
 * (scheduled submit → settlement in the database, and → completion webhook received) p50/p95,
 * healthy receivers' webhook delay (arrival − the delivery's creation at settlement), lost
 * tasks, each process's RSS (VmRSS) at the start and end of each phase, and PostgreSQL
 * sessions opened (pg_stat_database.sessions of the bench database, from before the API starts
 * until the processes have stopped) against the pools' size. Targets are printed with pass or
 * fail (as every bench here, a missed target does not change the exit code; errors do).
 *
 *   npx tsx bench/soak-bench.ts [--quick] [--idle-seconds 90] [--flood-seconds 150] [--accounts 12]
 *     [--load 0.6] [--flood-rate 64] [--concurrency 4] [--poll-ms 250] [--burst 80]
 *
 * `--quick`: a ~30 s smoke (15 s + 15 s, a burst of 40). SOAK_IDLE_SECONDS / SOAK_FLOOD_SECONDS
 * set the durations too. BENCH_DATABASE_URL: an existing server instead of a throw-away one.
 * The API's default rate limits apply (the well-behaved rates stay under them); clients are told
 * apart by X-Forwarded-For (TRUST_PROXY=1), as they would come from their own addresses.
 * Prints one JSON document on stdout. To see where time goes: SOAK_TRACE_FILE=<file> writes every
 * submit, every process's log lines and the non-idle backends sampled every 250 ms there;
 * SOAK_PROFILE_DIR=<dir> runs the API and workers with --cpu-prof into that folder.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { startPostgres } from '../../supabase/test/support/postgres-server.ts';
import { startFakeMidjourneyProxy } from '../test/support/fake-midjourney-proxy.ts';

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    'idle-seconds': { type: 'string' },
    'flood-seconds': { type: 'string' },
    accounts: { type: 'string', default: '12' },
    load: { type: 'string', default: '0.6' },
    'flood-rate': { type: 'string', default: '64' },
    concurrency: { type: 'string', default: '4' },
    'poll-ms': { type: 'string', default: '250' },
    burst: { type: 'string' },
  },
});

const quick = values.quick;
const IDLE_SECONDS = Number(values['idle-seconds'] ?? process.env.SOAK_IDLE_SECONDS ?? (quick ? 15 : 90));
const FLOOD_SECONDS = Number(values['flood-seconds'] ?? process.env.SOAK_FLOOD_SECONDS ?? (quick ? 15 : 150));
const ACCOUNTS = Number(values.accounts);
const LOAD = Number(values.load);
const FLOOD_RATE = Number(values['flood-rate']);
const CONCURRENCY = Number(values.concurrency);
const POLL_MS = Number(values['poll-ms']);
const BURST = Number(values.burst ?? (quick ? 40 : 80));
const PROBE_ACCOUNTS = 4;
/** The API's pool (supabase/src/db/postgres.ts) and each worker's, plus each process's LISTEN connection. */
const POOL_MAX = 10;
const PROCESSES = 3;
/** Default submit limit per key (README: Security limits): the well-behaved rate must stay under it. */
const SUBMIT_PER_KEY_PER_MINUTE = 120;

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const round = (n: number, digits = 2) => (Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : n);
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** Wall-clock milliseconds with sub-millisecond precision (comparable with PostgreSQL's now()). */
const nowMs = () => performance.timeOrigin + performance.now();

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i];
}

function summary(samples: number[]): { n: number; p50: number; p95: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { n: sorted.length, p50: round(percentile(sorted, 50), 1), p95: round(percentile(sorted, 95), 1), max: round(sorted.at(-1) ?? Number.NaN, 1) };
}

/* ------------------------------------------------------------------ processes */

interface Proc {
  name: string;
  child: ChildProcess;
  /** The last lines it printed (for an error report). */
  tail: string[];
  /** Log lines at level error or fatal, and a few of them. */
  errors: number;
  errorSamples: string[];
  /** Everything it printed until `ready` matched (the start-up lines are small). */
  startup: string;
  ready: boolean;
  /** Every line, when tracing (SOAK_TRACE_FILE). */
  all: string[];
}
const traceAll = Boolean(process.env.SOAK_TRACE_FILE);

function startProcess(name: string, script: string, env: Record<string, string>): Proc {
  const profile = process.env.SOAK_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.SOAK_PROFILE_DIR}`, `--cpu-prof-name=${name}.cpuprofile`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', script], { cwd: serverDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const proc: Proc = { name, child, tail: [], errors: 0, errorSamples: [], startup: '', ready: false, all: [] };
  let partial = '';
  const onData = (d: Buffer) => {
    const text = partial + d.toString();
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!proc.ready) proc.startup += `${line}\n`;
      proc.tail.push(line);
      if (traceAll) proc.all.push(line);
      if (proc.tail.length > 60) proc.tail.shift();
      if (/"level":"(error|fatal)"|"level":(50|60)\b/.test(line)) {
        proc.errors++;
        if (proc.errorSamples.length < 5) proc.errorSamples.push(line.slice(0, 400));
      }
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  return proc;
}

async function waitFor(proc: Proc, line: RegExp): Promise<RegExpMatchArray> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const match = proc.startup.match(line);
    if (match) {
      proc.ready = true;
      return match;
    }
    if (proc.child.exitCode !== null || Date.now() > deadline) throw new Error(`${proc.name} not ready (exit ${proc.child.exitCode}): ${proc.startup}`);
    await sleep(50);
  }
}

async function stopProcess(proc: Proc): Promise<void> {
  if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  const exited = once(proc.child, 'exit');
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}

/** VmRSS of a process in MB (Linux /proc), NaN elsewhere. */
function rssMb(pid: number | undefined): number {
  try {
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? round(Number(kb) / 1024, 1) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** CPU seconds (user + system) a process has used so far (Linux /proc), NaN elsewhere. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .replace(/^.*\) /, '')
      .split(' ');
    // after the command: state is field 3, utime 14 and stime 15 (1-based), in clock ticks (100 a second)
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

/* ------------------------------------------------------------------ receivers */

interface Arrival {
  at: number;
  event: string;
  taskId: string | undefined;
  webhookId: string;
  account: string;
}

/** Healthy receivers, one path per account (/hook/<account>): 204 at once, every arrival recorded. */
async function startHealthyReceiver(): Promise<{ url: string; arrivals: Arrival[]; close(): Promise<void> }> {
  const arrivals: Arrival[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const at = nowMs();
      let taskId: string | undefined;
      try {
        taskId = (JSON.parse(body) as { task_id?: string }).task_id;
      } catch {
        taskId = undefined;
      }
      arrivals.push({
        at,
        event: String(req.headers['x-webhook-event']),
        taskId,
        webhookId: String(req.headers['webhook-id']),
        account: (req.url ?? '').replace(/^\/hook\//, ''),
      });
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A dead endpoint: accepts connections, reads what comes, never answers. */
async function startDeadReceiver(): Promise<{ url: string; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  const server = net.createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('data', () => {});
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/* ------------------------------------------------------------------ clients */

interface Account {
  name: string;
  id: string;
  apiKey: string;
  /** Its X-Forwarded-For: each client comes from its own address. */
  address: string;
  webhookUrl?: string;
}

type Phase = 'idleProbe' | 'idle' | 'flood' | 'floodProbe';

interface Submit {
  account: string;
  phase: Phase;
  /** When the request was due to leave (open loop). */
  scheduledAt: number;
  latencyMs: number;
  status: number;
  taskId?: string;
}

const submits: Submit[] = [];
/** Answers to the flood and the test events, by status. */
const floodStatuses: Record<string, number> = {};
const testEventStatuses: Record<string, number> = {};
const floodLatencies: number[] = [];
const inFlight = new Set<Promise<unknown>>();

function track<T>(p: Promise<T>): Promise<T> {
  inFlight.add(p);
  void p.finally(() => inFlight.delete(p)).catch(() => {});
  return p;
}

async function post(apiUrl: string, account: Account, route: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${apiUrl}${route}`, {
    method: 'POST',
    headers: { authorization: account.apiKey, 'content-type': 'application/json', 'x-forwarded-for': account.address },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(60_000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

async function submitTask(apiUrl: string, account: Account, phase: Phase, scheduledAt: number, prompt: string): Promise<Submit> {
  const record: Submit = { account: account.name, phase, scheduledAt, latencyMs: Number.NaN, status: 0 };
  submits.push(record);
  try {
    const { status, json } = await post(apiUrl, account, '/pro/imagine', { prompt, ...(account.webhookUrl ? { webhook_url: account.webhookUrl } : {}) });
    record.status = status;
    if (status === 200) record.taskId = (json as { task_id: string }).task_id;
  } catch {
    record.status = -1;
  }
  record.latencyMs = nowMs() - scheduledAt;
  return record;
}

/**
 * Calls `fire(scheduledAt, i)` every 1000/rate ms from `start` (a random phase within the first
 * interval) until `stop()` or `until`, without waiting for earlier calls (open loop).
 */
function steady(rate: number, fire: (scheduledAt: number, i: number) => Promise<unknown>): { stop(): Promise<void> } {
  let stopped = false;
  const interval = 1000 / rate;
  const loop = (async () => {
    let next = nowMs() + Math.random() * interval;
    for (let i = 0; !stopped; i++) {
      const wait = next - nowMs();
      if (wait > 0) await sleep(wait);
      if (stopped) break;
      void track(fire(next, i));
      next += interval;
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/* ------------------------------------------------------------------ main */

async function main() {
  const loadAtStart = round(os.loadavg()[0]);
  const external = process.env.BENCH_DATABASE_URL;
  const server = external ? undefined : await startPostgres();
  const adminUrl = external ?? server?.url ?? '';
  const dbName = `bench_soak_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const url = adminUrl.replace(/\/[^/]*$/, `/${dbName}`);
  // the bench's one connection to the bench database during the run (serial queries), opened first
  const monitor = new pg.Client({ connectionString: url });
  await monitor.connect();
  const q = async <T extends pg.QueryResultRow>(sql: string, params?: unknown[]) => (await monitor.query<T>(sql, params)).rows;

  const mediaDir = await mkdtemp(path.join(os.tmpdir(), 'aim-soak-media-'));
  const upstream = await startFakeMidjourneyProxy({ scenario: () => ({ outcome: 'success', progress: ['0%', '30%', '70%'], withCells: true }) });
  const healthy = await startHealthyReceiver();
  const dead = await startDeadReceiver();
  const procs: Proc[] = [];
  const stopAll = async () => {
    await Promise.all(procs.map(stopProcess));
  };

  try {
    const version = (await q<{ server_version: string }>('show server_version'))[0].server_version;
    const sessions = async () => {
      // this connection's own pending counters first; the others flush at least every 10 s, and at exit
      await monitor.query('select pg_stat_force_next_flush()').catch(() => {});
      await monitor.query('select pg_stat_clear_snapshot()');
      return (await q<{ n: string }>('select sessions::text as n from pg_stat_database where datname = current_database()'))[0].n;
    };
    await sleep(1200);
    const sessionsBefore = Number(await sessions());

    // every backend of the bench database seen, by process (PGAPPNAME), sampled every 250 ms
    const seen = new Map<string, { app: string; firstSeen: number; lastSeen: number; lastBusy: number }>();
    let sampling = true;
    const activity: unknown[] = [];
    const sampler = (async () => {
      while (sampling) {
        const rows = await q<{ pid: number; app: string; started: Date; state: string; wait: string | null; query: string }>(
          `select pid, application_name as app, backend_start as started, state, wait_event_type || ':' || wait_event as wait, left(query, 60) as query
             from pg_stat_activity where datname = current_database() and backend_type = 'client backend' and pid <> pg_backend_pid()`,
        ).catch(() => []);
        const at = nowMs();
        if (traceAll) for (const r of rows) if (r.state !== 'idle') activity.push({ at, app: r.app, state: r.state, wait: r.wait, query: r.query });
        for (const r of rows) {
          const key = `${r.pid}:${r.started.getTime()}`;
          const entry = seen.get(key);
          const busy = r.state !== 'idle' ? at : undefined;
          if (entry) {
            entry.lastSeen = at;
            entry.lastBusy = busy ?? entry.lastBusy;
          } else seen.set(key, { app: r.app || '(none)', firstSeen: at, lastSeen: at, lastBusy: busy ?? at });
        }
        await sleep(250);
      }
    })();
    const [apiPort, supabasePort] = await Promise.all([freePort(), freePort()]);
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const baseEnv: Record<string, string> = Object.fromEntries(
      Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('RATE_LIMIT_') && !k.startsWith('WEBHOOK_')) as [string, string][],
    );
    const env: Record<string, string> = {
      ...baseEnv,
      DATABASE_URL: url,
      EMBEDDED: 'true',
      HOST: '127.0.0.1',
      PUBLIC_HOST: '127.0.0.1',
      API_PORT: String(apiPort),
      SUPABASE_PORT: String(supabasePort),
      API_PUBLIC_URL: apiUrl,
      SERVE_STATIC: 'false',
      IN_PROCESS_WORKER: 'false',
      MEDIA_DIR: mediaDir,
      MIDJOURNEY_PROXY_URL: upstream.baseUrl,
      MIDJOURNEY_PROXY_POLL_MS: String(POLL_MS),
      WORKER_CONCURRENCY: String(CONCURRENCY),
      WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      // every client its own address (X-Forwarded-For), as behind one load balancer
      TRUST_PROXY: '1',
    };
    const api = startProcess('api', 'src/main.ts', { ...env, PGAPPNAME: 'soak-api' });
    procs.push(api);
    await waitFor(api, /Ready in/);
    const workers = ['worker1', 'worker2'].map((name) =>
      startProcess(name, 'src/workers/main.ts', { ...env, WORKER_HEALTH_PORT: '0', PGAPPNAME: `soak-${name}` }),
    );
    procs.push(...workers);
    await Promise.all(workers.map((w) => waitFor(w, /"msg":"worker started"/)));

    // the accounts
    const createAccount = async (name: string, address: string, credits: number, webhookUrl?: string): Promise<Account> => {
      const [{ id }] = await q<{ id: string }>(`insert into auth.users (id, email) values (gen_random_uuid(), $1) returning id`, [`${name}@soak.example.test`]);
      if (credits > 0) await q('select public.apply_credit($1, $2, $3, $4)', [id, credits, `grant:${randomUUID()}`, 'soak bench']);
      const [{ api_key, credits: balance }] = await q<{ api_key: string; credits: number }>('select api_key, credits from public.mdusers where id = $1', [id]);
      if (credits === 0 && balance !== 0) throw new Error(`a new account starts with ${balance} credits`);
      return { name, id, apiKey: api_key, address, webhookUrl };
    };
    const good: Account[] = [];
    for (let i = 0; i < ACCOUNTS; i++) good.push(await createAccount(`good-${i}`, `10.0.1.${i + 1}`, 1_000_000, `${healthy.url}/good-${i}`));
    const probes: Account[] = [];
    for (let i = 0; i < PROBE_ACCOUNTS; i++) probes.push(await createAccount(`probe-${i}`, `10.0.4.${i + 1}`, 1_000_000));
    const deadAccount = await createAccount('dead-endpoint', '10.0.2.1', 1_000_000, dead.url);
    await q('update public.mdusers set integration_webhook_url = $2 where id = $1', [deadAccount.id, dead.url]);
    const flooder = await createAccount('no-credits', '10.0.3.1', 0);

    // the API's and workers' first requests (JIT, pools, routes) before anything is measured
    for (const account of probes) await submitTask(apiUrl, account, 'idleProbe', nowMs(), 'warm-up');
    await waitTerminal(
      q,
      submits.filter((s) => s.taskId).map((s) => s.taskId as string),
      60_000,
    );
    submits.length = 0;

    const rss: Record<string, Record<string, { startMb: number; endMb: number }>> = {};
    const sessionsAt: Record<string, number> = {};
    // CPU used by each process in each phase, as a share of one core
    const cpu: Record<string, Record<string, number>> = {};
    const cpuStart = new Map<string, number>();
    let phaseStarted = 0;
    const mark = (phase: Phase, edge: 'startMb' | 'endMb') => {
      const at = nowMs();
      if (edge === 'startMb') phaseStarted = at;
      for (const p of procs) {
        rss[p.name] ??= {};
        rss[p.name][phase] ??= { startMb: Number.NaN, endMb: Number.NaN };
        rss[p.name][phase][edge] = rssMb(p.child.pid);
        const used = cpuSeconds(p.child.pid);
        if (edge === 'startMb') cpuStart.set(p.name, used);
        else {
          cpu[p.name] ??= {};
          cpu[p.name][phase] = round((100 * (used - (cpuStart.get(p.name) ?? Number.NaN))) / ((at - phaseStarted) / 1000), 0);
        }
      }
      const bench = process.cpuUsage();
      const benchUsed = (bench.user + bench.system) / 1e6;
      if (edge === 'startMb') cpuStart.set('bench', benchUsed);
      else {
        cpu.bench ??= {};
        cpu.bench[phase] = round((100 * (benchUsed - (cpuStart.get('bench') ?? Number.NaN))) / ((at - phaseStarted) / 1000), 0);
      }
    };
    const windows: Partial<Record<Phase, { start: number; end: number }>> = {};

    /** A burst from the probe accounts; tasks of any account settled per second from its first claim to its last settlement. */
    async function capacityProbe(phase: Phase) {
      mark(phase, 'startMb');
      const start = nowMs();
      const per = Math.ceil(BURST / PROBE_ACCOUNTS);
      const done = await Promise.all(
        probes.flatMap((account) => Array.from({ length: per }, (_, i) => submitTask(apiUrl, account, phase, nowMs(), `probe ${phase} ${i}`))),
      );
      const ids = done.filter((s) => s.taskId).map((s) => s.taskId as string);
      if (ids.length < done.length)
        throw new Error(`${done.length - ids.length} probe submits were refused: ${JSON.stringify(done.filter((s) => !s.taskId).slice(0, 3))}`);
      await waitTerminal(q, ids, 300_000);
      const [span] = await q<{ first: Date; last: Date }>(
        `select min(j.claimed_at) as first, max(t.updated_at) as last from public.tasks t join public.task_jobs j on j.task_id = t.id where t.id = any($1::uuid[])`,
        [ids],
      );
      const [{ n }] = await q<{ n: number }>(
        `select count(*)::int as n from public.tasks where status in ('finished', 'failed') and updated_at > $1 and updated_at <= $2`,
        [span.first, span.last],
      );
      const seconds = (span.last.getTime() - span.first.getTime()) / 1000;
      windows[phase] = { start, end: nowMs() };
      mark(phase, 'endMb');
      sessionsAt[phase] = Number(await sessions());
      return { burst: ids.length, seconds: round(seconds), tasksSettled: n, tasksPerSecond: round(n / seconds) };
    }

    // 1. capacity, idle
    const idleCapacity = await capacityProbe('idleProbe');
    const totalRate = LOAD * idleCapacity.tasksPerSecond;
    const perAccountRate = totalRate / ACCOUNTS;
    if (perAccountRate * 60 > SUBMIT_PER_KEY_PER_MINUTE * 0.8) {
      throw new Error(
        `${round(perAccountRate * 60)} submits a minute per account is too close to the per-key limit (${SUBMIT_PER_KEY_PER_MINUTE}); use more --accounts`,
      );
    }
    let current: Phase = 'idle';
    const wellBehaved = () => good.map((account) => steady(perAccountRate, (at, i) => submitTask(apiUrl, account, current, at, `${account.name} ${i}`)));

    // 2. idle: the well-behaved load alone
    mark('idle', 'startMb');
    windows.idle = { start: nowMs(), end: Number.NaN };
    let streams = wellBehaved();
    await sleep(IDLE_SECONDS * 1000);
    windows.idle.end = nowMs();
    mark('idle', 'endMb');
    sessionsAt.idle = Number(await sessions());

    // 3. flood: the same load, plus a zero-credit flood and a dead webhook endpoint
    current = 'flood';
    mark('flood', 'startMb');
    windows.flood = { start: nowMs(), end: Number.NaN };
    const hostile = [
      steady(FLOOD_RATE, async (_at, i) => {
        const started = nowMs();
        const { status } = await post(apiUrl, flooder, '/pro/imagine', { prompt: `flood ${i}` }).catch(() => ({ status: -1 }));
        floodLatencies.push(nowMs() - started);
        floodStatuses[status] = (floodStatuses[status] ?? 0) + 1;
      }),
      steady(perAccountRate, (at, i) => submitTask(apiUrl, deadAccount, current, at, `dead endpoint ${i}`)),
      // test events to the dead account URL: more than the limit (10 a minute, 5 waiting) lets through
      steady(0.5, async () => {
        const { status } = await post(apiUrl, deadAccount, '/auth/webhook-test', undefined).catch(() => ({ status: -1 }));
        testEventStatuses[status] = (testEventStatuses[status] ?? 0) + 1;
      }),
    ];
    await sleep(FLOOD_SECONDS * 1000);
    windows.flood.end = nowMs();
    mark('flood', 'endMb');
    sessionsAt.flood = Number(await sessions());

    // 4. capacity under the flood (the well-behaved load stopped)
    await Promise.all(streams.map((s) => s.stop()));
    streams = [];
    await waitTerminal(
      q,
      submits.filter((s) => s.taskId && s.account.startsWith('good-')).map((s) => s.taskId as string),
      300_000,
    );
    current = 'floodProbe';
    const floodCapacity = await capacityProbe('floodProbe');
    await Promise.all(hostile.map((s) => s.stop()));
    await Promise.all(inFlight);

    // drain: every acknowledged task settles, the healthy receivers get their completions
    const acknowledged = submits.filter((s) => s.taskId).map((s) => s.taskId as string);
    const stillRunning = await waitTerminal(q, acknowledged, 300_000).then(
      () => 0,
      async () =>
        (
          await q<{ n: number }>(`select count(*)::int as n from public.tasks where id = any($1::uuid[]) and status not in ('finished','failed')`, [
            acknowledged,
          ])
        )[0].n,
    );
    const goodIds = new Set(submits.filter((s) => s.taskId && s.account.startsWith('good-')).map((s) => s.taskId as string));
    const finalEvent = (a: Arrival) => a.event === 'task.completed' || a.event === 'task.failed';
    const deadline = Date.now() + 60_000;
    while (
      Date.now() < deadline &&
      new Set(healthy.arrivals.filter((a) => finalEvent(a) && a.taskId && goodIds.has(a.taskId)).map((a) => a.taskId)).size < goodIds.size
    ) {
      await sleep(200);
    }

    // the books: every acknowledged task terminal, one hold, a refund only on failure and once
    const books = await q<{ id: string; status: string; holds: number; refunds: number; completed_at: Date | null; settled_at: Date }>(
      `select t.id, t.status, t.updated_at as settled_at,
              (select count(*)::int from public.credit_ledger l where l.source_key = 'hold:' || t.id) as holds,
              (select count(*)::int from public.credit_ledger l where l.source_key = 'refund:' || t.id) as refunds,
              (select min(d.created_at) from public.webhook_deliveries d where d.task_id = t.id and d.event in ('task.completed', 'task.failed')) as completed_at
         from public.tasks t where t.id = any($1::uuid[])`,
      [acknowledged],
    );
    const byId = new Map(books.map((b) => [b.id, b]));
    const lost: Record<string, number> = { missing: 0, notTerminal: 0, holdNotOnce: 0, refundWrong: 0 };
    for (const id of acknowledged) {
      const b = byId.get(id);
      if (!b) lost.missing++;
      else if (b.status !== 'finished' && b.status !== 'failed') lost.notTerminal++;
      else if (b.holds !== 1) lost.holdNotOnce++;
      else if (b.refunds !== (b.status === 'failed' ? 1 : 0)) lost.refundWrong++;
    }
    const [ledger] = await q<{ off: number; flooder_tasks: number; flooder_credits: number }>(
      `select (select count(*)::int from public.mdusers u where u.id = any($1::uuid[])
                 and u.credits <> (select coalesce(sum(delta), 0) from public.credit_ledger l where l.user_id = u.id)) as off,
              (select count(*)::int from public.tasks where user_id = $2) as flooder_tasks,
              (select credits from public.mdusers where id = $2) as flooder_credits`,
      [[...good, ...probes, deadAccount, flooder].map((a) => a.id), flooder.id],
    );
    const failedTasks = books.filter((b) => b.status === 'failed').length;
    const lostTasks = lost.missing + lost.notTerminal + lost.holdNotOnce + lost.refundWrong;

    // PostgreSQL sessions: the processes stop (their pending statistics flush at exit)
    const peakBackends = await q<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database()`);
    sampling = false;
    await sampler;
    await stopAll();
    await sleep(500);
    const sessionsAfter = Number(await sessions());
    // a backend that ended before the processes stopped: how long it had been idle (sampled) when it went
    const backendsByProcess: Record<string, { seen: number; closedBeforeTheEnd: number; idleBeforeClosingS: number[] }> = {};
    const lastSample = Math.max(...[...seen.values()].map((b) => b.lastSeen));
    for (const b of seen.values()) {
      backendsByProcess[b.app] ??= { seen: 0, closedBeforeTheEnd: 0, idleBeforeClosingS: [] };
      backendsByProcess[b.app].seen++;
      if (b.lastSeen < lastSample - 1000) {
        backendsByProcess[b.app].closedBeforeTheEnd++;
        backendsByProcess[b.app].idleBeforeClosingS.push(round((b.lastSeen - b.lastBusy) / 1000, 1));
      }
    }

    /* ---------------------------------------------- figures per steady phase */
    const arrivalsByWebhook = new Map<string, Arrival>();
    for (const a of healthy.arrivals) if (!arrivalsByWebhook.has(a.webhookId)) arrivalsByWebhook.set(a.webhookId, a);
    const finalArrival = new Map<string, Arrival>();
    for (const a of arrivalsByWebhook.values()) if (finalEvent(a) && a.taskId && !finalArrival.has(a.taskId)) finalArrival.set(a.taskId, a);
    const deliveries = await q<{ id: string; event: string; created_at: Date }>(
      `select id, event, created_at from public.webhook_deliveries where task_id = any($1::uuid[])`,
      [[...goodIds]],
    );

    const steadyFigures = (phase: 'idle' | 'flood') => {
      const window = windows[phase] as { start: number; end: number };
      const mine = submits.filter((s) => s.phase === phase && s.account.startsWith('good-'));
      const ok = mine.filter((s) => s.status === 200);
      const e2eSettled: number[] = [];
      const e2eWebhook: number[] = [];
      for (const s of ok) {
        const b = byId.get(s.taskId as string);
        if (b?.completed_at) e2eSettled.push(b.completed_at.getTime() - s.scheduledAt);
        const a = finalArrival.get(s.taskId as string);
        if (a) e2eWebhook.push(a.at - s.scheduledAt);
      }
      // healthy receivers' webhook delay: arrival − the delivery's creation, for deliveries created in this phase
      const delay: number[] = [];
      const finalDelay: number[] = [];
      for (const d of deliveries) {
        const created = d.created_at.getTime();
        if (created < window.start || created >= window.end) continue;
        const a = arrivalsByWebhook.get(d.id);
        if (!a) continue;
        delay.push(a.at - created);
        if (d.event !== 'task.progress') finalDelay.push(a.at - created);
      }
      // well-behaved tasks settled inside the window, per second
      const settledInWindow = books.filter((b) => goodIds.has(b.id) && b.settled_at.getTime() >= window.start && b.settled_at.getTime() < window.end).length;
      const statuses: Record<string, number> = {};
      for (const s of mine) statuses[s.status] = (statuses[s.status] ?? 0) + 1;
      return {
        seconds: round((window.end - window.start) / 1000, 1),
        submitted: mine.length,
        submitStatuses: statuses,
        offeredTasksPerSecond: round(mine.length / ((window.end - window.start) / 1000)),
        heldTasksPerSecond: round(settledInWindow / ((window.end - window.start) / 1000)),
        submitLatencyMs: summary(ok.map((s) => s.latencyMs)),
        endToEndMs: summary(e2eSettled),
        endToEndToWebhookMs: summary(e2eWebhook),
        webhookDelayMs: { final: summary(finalDelay), all: summary(delay) },
      };
    };
    const idle = steadyFigures('idle');
    const flood = steadyFigures('flood');
    const ratio = (a: number, b: number) => round(a / b);
    const poolsSize = PROCESSES * (POOL_MAX + 1);
    const sessionsOpened = sessionsAfter - sessionsBefore;
    const rssGrowth = Object.fromEntries(procs.map((p) => [p.name, ratio(rss[p.name].floodProbe.endMb, rss[p.name].idle.startMb)]));
    const missingWebhooks = [...goodIds].filter((id) => byId.get(id)?.status === 'finished' && !finalArrival.has(id)).length;

    const targets = {
      capacityUnderFlood: {
        value: ratio(floodCapacity.tasksPerSecond, idleCapacity.tasksPerSecond),
        target: '>= 0.9 (flood capacity ÷ idle capacity)',
        pass: floodCapacity.tasksPerSecond >= 0.9 * idleCapacity.tasksPerSecond,
      },
      heldThroughputUnderFlood: {
        value: ratio(flood.heldTasksPerSecond, idle.heldTasksPerSecond),
        target: '>= 0.9 (well-behaved tasks settled per second, flood ÷ idle)',
        pass: flood.heldTasksPerSecond >= 0.9 * idle.heldTasksPerSecond,
      },
      submitP95: {
        value: ratio(flood.submitLatencyMs.p95, idle.submitLatencyMs.p95),
        target: '<= 1.5 × idle',
        pass: flood.submitLatencyMs.p95 <= 1.5 * idle.submitLatencyMs.p95,
      },
      endToEndP95: { value: ratio(flood.endToEndMs.p95, idle.endToEndMs.p95), target: '<= 2 × idle', pass: flood.endToEndMs.p95 <= 2 * idle.endToEndMs.p95 },
      healthyWebhookDelayP95Ms: {
        value: flood.webhookDelayMs.final.p95,
        target: '<= 1000 ms (completion webhooks, flood phase)',
        pass: flood.webhookDelayMs.final.p95 <= 1000,
      },
      lostTasks: { value: lostTasks + stillRunning, target: '0', pass: lostTasks + stillRunning === 0 && ledger.off === 0 },
      sessionsOpened: {
        value: sessionsOpened,
        target: `<= ${poolsSize} (${PROCESSES} processes × (pool ${POOL_MAX} + LISTEN 1))`,
        pass: sessionsOpened <= poolsSize,
      },
      rssFlat: {
        value: rssGrowth,
        target: '<= 1.25 (each process: RSS at the end ÷ at the start of the idle phase)',
        pass: Object.values(rssGrowth).every((g) => g <= 1.25),
      },
      wellBehavedRefused: {
        value:
          idle.submitted +
          flood.submitted -
          submits.filter((s) => (s.phase === 'idle' || s.phase === 'flood') && s.account.startsWith('good-') && s.status === 200).length,
        target: '0',
        pass: [...Object.keys(idle.submitStatuses), ...Object.keys(flood.submitStatuses)].every((s) => s === '200'),
      },
    };

    if (process.env.SOAK_TRACE_FILE) {
      const { writeFileSync } = await import('node:fs');
      writeFileSync(process.env.SOAK_TRACE_FILE, JSON.stringify({ windows, submits, activity, logs: Object.fromEntries(procs.map((p) => [p.name, p.all])) }));
    }
    console.log(
      JSON.stringify(
        {
          bench: 'soak',
          database: `postgres ${version}`,
          layout: 'api + 2 workers (real entry points), fake midjourney-proxy upstream',
          cores: os.availableParallelism(),
          // other work on the machine moves every figure: its 1-minute load average at the start and the end
          loadAverage: { start: loadAtStart, end: round(os.loadavg()[0]) },
          settings: {
            idleSeconds: IDLE_SECONDS,
            floodSeconds: FLOOD_SECONDS,
            wellBehavedAccounts: ACCOUNTS,
            load: LOAD,
            perAccountSubmitsPerMinute: round(perAccountRate * 60),
            floodRequestsPerSecond: FLOOD_RATE,
            workerConcurrency: CONCURRENCY,
            upstreamPollMs: POLL_MS,
            burst: BURST,
          },
          capacity: { idle: idleCapacity, flood: floodCapacity },
          idle,
          flood,
          hostile: {
            floodStatuses,
            floodLatencyMs: summary(floodLatencies),
            deadEndpointConnections: dead.connections(),
            testEventStatuses,
            flooderTasks: ledger.flooder_tasks,
            flooderCredits: ledger.flooder_credits,
          },
          tasks: {
            acknowledged: acknowledged.length,
            failed: failedTasks,
            lost: { ...lost, stillRunningAfterDrain: stillRunning },
            accountsWhoseBalanceIsNotTheirLedger: ledger.off,
            wellBehavedFinishedWithoutCompletionWebhook: missingWebhooks,
          },
          rssMb: rss,
          cpuPercentOfOneCore: cpu,
          postgresSessions: {
            openedDuringRun: sessionsOpened,
            atPhaseEnds: Object.fromEntries(Object.entries(sessionsAt).map(([k, v]) => [k, v - sessionsBefore])),
            backendsAtEnd: peakBackends[0].n,
            backendsSeenByProcess: backendsByProcess,
            poolsSize,
          },
          processErrors: Object.fromEntries(procs.map((p) => [p.name, { errorLines: p.errors, samples: p.errorSamples }])),
          targets,
          pass: Object.values(targets).every((t) => t.pass),
        },
        null,
        2,
      ),
    );
  } catch (error) {
    for (const p of procs) console.error(`----- ${p.name} (last lines)\n${p.tail.join('\n')}`);
    throw error;
  } finally {
    await stopAll();
    await upstream.close();
    await healthy.close();
    await dead.close();
    await monitor.end().catch(() => {});
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
    await server?.stop();
    await rm(mediaDir, { recursive: true, force: true });
  }
}

/** Until every task is finished or failed. */
async function waitTerminal(
  q: <T extends pg.QueryResultRow>(sql: string, params?: unknown[]) => Promise<T[]>,
  ids: string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ n }] = await q<{ n: number }>(`select count(*)::int as n from public.tasks where id = any($1::uuid[]) and status not in ('finished', 'failed')`, [
      ids,
    ]);
    const [{ known }] = await q<{ known: number }>(`select count(*)::int as known from public.tasks where id = any($1::uuid[])`, [ids]);
    if (n === 0 && known === ids.length) return;
    if (Date.now() > deadline) throw new Error(`${n} of ${ids.length} tasks not terminal after ${timeoutMs / 1000} s`);
    await sleep(200);
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
