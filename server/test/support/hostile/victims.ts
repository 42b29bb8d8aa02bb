/**
 * Well-behaved tenants measuring the platform while it is attacked: each keeps reading its
 * account and submitting a small real task (`/shorten`, a rule-based text reduction on every
 * layout) with a webhook to its own receiver, and follows its tasks through realtime.
 * Every request must succeed; latencies are kept per kind for comparison with a baseline.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { makeClient } from '@aim/supabase/testing';
import type { Platform } from './platform.ts';
import { callApi, type Tenant } from './tenants.ts';

export interface Samples {
  /** GET /account round trips. */
  account: number[];
  /** POST /shorten round trips. */
  submit: number[];
  /** From a submit's start to its task.completed webhook at the tenant's receiver. */
  completed: number[];
  /** From a submit's start to the task's first realtime event at the tenant's client. */
  realtime: number[];
  /** Anything that did not answer as it should, described. */
  failures: string[];
  taskIds: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const p95 = (xs: number[]) => {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)];
};

/** The tenants' webhook receiver: records when each task's events arrive (performance.now() clock). */
export async function startReceiver() {
  const arrivals = new Map<string, { event: string; at: number }[]>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      try {
        const taskId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { task_id?: string }).task_id;
        if (taskId) arrivals.set(taskId, [...(arrivals.get(taskId) ?? []), { event: String(req.headers['x-webhook-event']), at }]);
      } catch {
        // not a task event
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A realtime follower of one tenant's tasks (its own session, RLS deciding what it sees). */
export async function followTasks(p: Platform, t: Tenant) {
  const firstEvent = new Map<string, number>();
  const client: SupabaseClient = makeClient(p.supabaseUrl, p.anonKey);
  const { error } = await client.auth.setSession({ access_token: t.session, refresh_token: t.refreshToken });
  if (error) throw error;
  const channel: RealtimeChannel = client
    .channel(`victim-${t.id}`)
    .on('postgres_changes', { event: '*', schema: 'public', table: 'tasks', filter: `user_id=eq.${t.id}` }, (change) => {
      const id = (change.new as { id?: string }).id;
      if (id && !firstEvent.has(id)) firstEvent.set(id, performance.now());
    });
  await new Promise<void>((resolve, reject) =>
    channel.subscribe((status, err) =>
      status === 'SUBSCRIBED' ? resolve() : status === 'CHANNEL_ERROR' || status === 'TIMED_OUT' ? reject(err ?? new Error(status)) : undefined,
    ),
  );
  return {
    firstEvent,
    close: async () => {
      await client.removeAllChannels();
    },
  };
}

export type Follower = Awaited<ReturnType<typeof followTasks>>;

/**
 * Runs every tenant's probe loop until stopped, then waits (bounded) for the completions of the
 * tasks submitted meanwhile. Pace per tenant: a read every ~150 ms and a submit every ~1 s,
 * well inside the per-key defaults (600 reads, 120 submits a minute) for the whole suite.
 */
/** `followers[i]` follows `tenants[i]`'s tasks. */
export function runVictims(p: Platform, tenants: Tenant[], receiver: Receiver, followers: Follower[]) {
  const samples: Samples = { account: [], submit: [], completed: [], realtime: [], failures: [], taskIds: [] };
  const started = new Map<string, number>();
  const owner = new Map<string, string>();
  let running = true;

  async function loop(t: Tenant, offset: number) {
    await sleep(offset);
    let n = 0;
    while (running) {
      try {
        const account = await callApi(p, t, 'GET', '/account');
        if (account.status === 200) samples.account.push(account.ms);
        else samples.failures.push(`GET /account ${account.status} ${account.text.slice(0, 200)}`);
        if (n++ % 6 === 0) {
          const t0 = performance.now();
          const res = await callApi(p, t, 'POST', '/shorten', {
            prompt: `a very beautiful, stunning, highly detailed photograph of a lighthouse number ${n}, 8k`,
            webhook_url: `${receiver.url}/${t.id}`,
          });
          if (res.status === 200) {
            samples.submit.push(res.ms);
            const id = (JSON.parse(res.text) as { task_id: string }).task_id;
            started.set(id, t0);
            owner.set(id, t.id);
            samples.taskIds.push(id);
          } else samples.failures.push(`POST /shorten ${res.status} ${res.text.slice(0, 200)}`);
        }
      } catch (e) {
        samples.failures.push(`probe error: ${(e as Error).message}`);
      }
      await sleep(150);
    }
  }

  const loops = tenants.map((t, i) => loop(t, i * 50));
  return {
    async stop(waitMs = 15_000): Promise<Samples> {
      running = false;
      await Promise.all(loops);
      const deadline = Date.now() + waitMs;
      const completedAt = (id: string) => receiver.arrivals.get(id)?.find((a) => a.event === 'task.completed')?.at;
      while (Date.now() < deadline && samples.taskIds.some((id) => completedAt(id) === undefined)) await sleep(50);
      for (const id of samples.taskIds) {
        const at = completedAt(id);
        if (at === undefined) samples.failures.push(`task ${id}: no task.completed webhook within ${waitMs} ms`);
        else samples.completed.push(at - started.get(id)!);
        // every task shows up on its tenant's realtime channel
        const seen = followers[tenants.findIndex((t) => t.id === owner.get(id))]?.firstEvent.get(id);
        if (seen === undefined) samples.failures.push(`task ${id}: no realtime event`);
        else samples.realtime.push(Math.max(0, seen - started.get(id)!));
      }
      return samples;
    },
  };
}

export interface Bound {
  kind: keyof Omit<Samples, 'failures' | 'taskIds'>;
  base: number;
  attack: number;
  limit: number;
}

/**
 * The latency bound under attack, from the baseline of the same run: at most 3× the baseline
 * p95, or the baseline p95 plus a slack when that is larger: 1 s for requests and realtime
 * events, 1.5 s for a task's completion webhook. What the suite is for: an attack that stops a
 * process or freezes its event loop (the ReDoS filter, a malformed line, a body read whole)
 * stalls every tenant for many seconds or for good, far past these bounds, on any machine. A
 * tighter bound flakes on a loaded 2-core CI machine, where one attack's own CPU (parsing
 * 60 MB it refuses, 400 refused submits) moves a tenant's p95 by hundreds of milliseconds;
 * the fine-grained slowdown under a steady flood is measured, with targets, by `bench:soak`.
 */
export function bounds(base: Samples, attack: Samples): Bound[] {
  const slack = { account: 1000, submit: 1000, realtime: 1000, completed: 1500 } as const;
  return (['account', 'submit', 'completed', 'realtime'] as const).map((kind) => {
    const b = p95(base[kind]);
    return { kind, base: b, attack: p95(attack[kind]), limit: Math.max(3 * b, b + slack[kind]) };
  });
}
