import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, openPostgres, type Db } from '@aim/supabase/db';
import { freePort, startPostgres, testDatabaseKinds, type RunningPostgres } from '@aim/supabase/testing';
import { createUser, type TestUser } from './helpers.ts';
import { startFakeMidjourneyProxy, type FakeMidjourneyProxy } from './support/fake-midjourney-proxy.ts';
import { balanceOf, grantCredits, ledgerOf, readTask, TERMINAL } from './support/tasks.ts';

const serverDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface Received {
  event: string;
  taskId: string;
  webhookId: string;
}

interface Proc {
  child: ChildProcess;
  out: string;
}

// The operator's set-up on one PostgreSQL: the API process and two worker processes (the real
// entry points), tasks submitted through the API on an upstream engine (a fake
// midjourney-proxy with a few progress steps), webhooks to a receiver. Mid-run one worker is
// SIGKILLed while it holds a job, then PostgreSQL restarts once under everything. Every task
// must end terminal, its hold settled or refunded exactly once, with exactly one completion
// webhook; the API and the surviving worker live on and report not-ready only while the
// database is away. The suite runs its own PostgreSQL (it restarts it) and short leases.
for (const kind of testDatabaseKinds().filter((k) => k === 'postgres')) {
  describe(`scale-out chaos on ${kind}`, () => {
    let server: RunningPostgres;
    let db: Db;
    let mediaDir: string;
    let upstream: FakeMidjourneyProxy;
    let receiver: http.Server;
    let receiverUrl: string;
    let api: Proc;
    let apiUrl: string;
    let supabaseUrl: string;
    const procs: Proc[] = [];
    const received: Received[] = [];
    let env: Record<string, string>;

    function start(script: string, extra: Record<string, string> = {}): Proc {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: serverDir,
        env: { ...process.env, ...env, ...extra },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const proc = { child, out: '' };
      child.stdout?.on('data', (d: Buffer) => (proc.out += d.toString()));
      child.stderr?.on('data', (d: Buffer) => (proc.out += d.toString()));
      procs.push(proc);
      return proc;
    }

    async function ready(proc: Proc, line: RegExp): Promise<RegExpMatchArray> {
      const deadline = Date.now() + 40_000;
      for (;;) {
        const match = proc.out.match(line);
        if (match) return match;
        if (proc.child.exitCode !== null || Date.now() > deadline) throw new Error(`not ready (exit ${proc.child.exitCode}): ${proc.out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    }

    async function startWorker(): Promise<{ proc: Proc; healthUrl: string }> {
      const proc = start('src/workers/main.ts', { WORKER_HEALTH_PORT: '0' });
      const [, host, port] = await ready(proc, /"health":"([\d.]+):(\d+)","msg":"worker started"/);
      return { proc, healthUrl: `http://${host}:${port}` };
    }

    /** Until the test's own pool works again after the restart. */
    async function reachable(): Promise<void> {
      for (;;) {
        if (
          await db.query('select 1').then(
            () => true,
            () => false,
          )
        )
          return;
        await new Promise((r) => setTimeout(r, 100));
      }
    }

    beforeAll(async () => {
      server = await startPostgres();
      db = await openPostgres(server.url, { log: () => {} });
      await migrate(db, { local: true });
      mediaDir = await mkdtemp(path.join(os.tmpdir(), 'aim-chaos-media-'));
      upstream = await startFakeMidjourneyProxy({
        scenario: ({ prompt }) =>
          prompt?.includes('fails')
            ? { outcome: 'failure', progress: ['0%', '20%', '40%', '60%', '80%'], failReason: 'upstream refused' }
            : prompt?.includes('slow')
              ? { outcome: 'success', progress: Array.from({ length: 200 }, (_, i) => `${Math.floor(i / 2)}%`), withCells: true }
              : { outcome: 'success', progress: ['0%', '20%', '40%', '60%', '80%'], withCells: true },
      });
      receiver = http.createServer((req, res) => {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => {
          const taskId = (JSON.parse(body) as { task_id: string }).task_id;
          received.push({ event: String(req.headers['x-webhook-event']), taskId, webhookId: String(req.headers['webhook-id']) });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const [apiPort, supabasePort] = [await freePort(), await freePort()];
      apiUrl = `http://127.0.0.1:${apiPort}`;
      supabaseUrl = `http://127.0.0.1:${supabasePort}`;
      env = {
        DATABASE_URL: server.url,
        // a development set-up on one machine: sandbox billing, the local services' default keys
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
        MIDJOURNEY_PROXY_POLL_MS: '150',
        WORKER_CONCURRENCY: '2',
        WORKER_LEASE_MS: '1500',
        WORKER_HEARTBEAT_MS: '300',
        WORKER_SHUTDOWN_GRACE_MS: '0',
        WEBHOOKS_ALLOW_PRIVATE_TARGETS: 'true',
      };
      api = start('src/main.ts');
      await ready(api, /Ready in/);
    });

    afterAll(async () => {
      for (const { child } of procs) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await Promise.all(procs.map(({ child }) => (child.exitCode === null && child.signalCode === null ? once(child, 'exit') : undefined)));
      await db?.close();
      await server?.stop();
      await upstream?.close();
      await new Promise((r) => receiver?.close(r));
      if (mediaDir) await rm(mediaDir, { recursive: true, force: true });
    });

    async function submit(user: TestUser, prompt: string): Promise<string> {
      const res = await fetch(`${apiUrl}/pro/imagine`, {
        method: 'POST',
        headers: { authorization: user.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt, webhook_url: receiverUrl }),
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { task_id: string }).task_id;
    }

    it('ends every task once, with one completion webhook each, through a SIGKILLed worker and a PostgreSQL restart', async () => {
      // not embedded mode: the dev mailbox with everyone's magic links is not served
      expect((await fetch(`${supabaseUrl}/_dev/mailbox.json`)).status).toBe(404);
      expect((await fetch(`${apiUrl}/livez`)).status).toBe(200);
      expect((await fetch(`${apiUrl}/readyz`)).status).toBe(200);

      const user = await createUser(db);
      await grantCredits(db, user.id, 100);
      const [first, second] = await Promise.all([startWorker(), startWorker()]);
      const prompts = ['a lighthouse', 'a fox', 'a harbour', 'this one fails', 'a meadow', 'a comet'];
      const ids: string[] = [];
      for (const prompt of prompts) ids.push(await submit(user, prompt));

      // SIGKILL the first worker while it holds a job that has made progress
      const firstPid = first.proc.child.pid;
      for (;;) {
        const { rows } = await db.query<{ n: number }>(
          `select count(*)::int as n from public.task_jobs j join public.tasks t on t.id = j.task_id
            where j.state = 'active' and j.locked_by like $1 and t.percentage > 0`,
          [`%:${firstPid}:%`],
        );
        if (rows[0].n > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      first.proc.child.kill('SIGKILL');
      await once(first.proc.child, 'exit');

      // PostgreSQL restarts: while it is away, neither the API nor the worker is ready
      await server.restart(async () => {
        const apiReady = await fetch(`${apiUrl}/readyz`);
        expect(apiReady.status).toBe(503);
        expect(((await apiReady.json()) as { checks: { database: { ok: boolean } } }).checks.database.ok).toBe(false);
        expect((await fetch(`${second.healthUrl}/readyz`)).status).toBe(503);
        expect((await fetch(`${second.healthUrl}/livez`)).status).toBe(200);
      });
      await reachable();

      // every task ends; the completions reach the receiver
      for (const id of ids) {
        for (;;) {
          const task = await readTask(db, id);
          if (TERMINAL.includes(task.status)) break;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
      const finals = (id: string) => received.filter((r) => r.taskId === id && r.event !== 'task.progress');
      // A webhook delivery the killed worker had claimed (its dispatcher runs there too) comes due
      // again only when that claim's lease runs out: the send timeout (10 s) plus a 15 s margin
      // (webhooks/webhook-service.ts); a task's later deliveries wait behind it, in order.
      await expect
        .poll(() => ids.every((id) => finals(id).length > 0), { timeout: 90_000, interval: 100 })
        .toBe(true)
        .catch(async (error) => {
          // what the processes said, to tell which part did not recover
          console.error(procs.map((p) => p.out).join('\n-----\n'));
          throw error;
        });

      // the processes lived through it, and are ready again
      expect(api.child.exitCode).toBeNull();
      expect(second.proc.child.exitCode).toBeNull();
      await expect.poll(async () => (await fetch(`${apiUrl}/readyz`)).status, { timeout: 10_000 }).toBe(200);
      await expect.poll(async () => (await fetch(`${second.healthUrl}/readyz`)).status, { timeout: 10_000 }).toBe(200);

      const tasks = await Promise.all(ids.map((id) => readTask(db, id)));
      expect(tasks.map((t) => t.status)).toEqual(prompts.map((p) => (p.includes('fails') ? 'failed' : 'finished')));
      for (const [i, id] of ids.entries()) {
        const failed = prompts[i].includes('fails');
        // one hold, and for a failure one refund: never twice, whatever was retried
        expect((await ledgerOf(db, id)).map((l) => l.source_key)).toEqual(failed ? [`hold:${id}`, `refund:${id}`] : [`hold:${id}`]);
        // one completion: a redelivery (a dispatcher cut off mid-way) carries the same webhook-id
        expect(new Set(finals(id).map((r) => r.webhookId)).size, id).toBe(1);
        expect(new Set(finals(id).map((r) => r.event))).toEqual(new Set([failed ? 'task.failed' : 'task.completed']));
        const { rows } = await db.query<{ n: number }>(
          `select count(*)::int as n from public.webhook_deliveries where task_id = $1 and event <> 'task.progress'`,
          [id],
        );
        expect(rows[0].n).toBe(1);
      }
      const cost = tasks.filter((t) => t.status === 'finished').reduce((sum, t) => sum + t.cost, 0);
      expect(await balanceOf(db, user.id)).toMatchObject({ credits: 100 - cost, ledgerSum: 100 - cost });
    }, 180_000);

    it('fails a task whose worker keeps dying after its attempts, within seconds per attempt', async () => {
      // the workers of the first test stop gracefully (SIGTERM): only the ones started here run
      for (const { child } of procs.slice(1)) {
        if (child.exitCode !== null || child.signalCode !== null) continue;
        child.kill('SIGTERM');
        const [code] = await once(child, 'exit');
        expect(code).toBe(0);
      }
      const user = await createUser(db);
      await grantCredits(db, user.id, 20);
      // long enough upstream work that the worker is always killed mid-task
      const id = await submit(user, 'a very slow render');
      await db.query(`update public.task_jobs set max_attempts = 2 where task_id = $1`, [id]);
      for (let attempt = 1; attempt <= 2; attempt++) {
        const { proc } = await startWorker();
        for (;;) {
          const { rows } = await db.query<{ attempts: number; locked_by: string | null; state: string }>(
            'select attempts, locked_by, state from public.task_jobs where task_id = $1',
            [id],
          );
          if (rows[0].state === 'active' && rows[0].attempts === attempt && rows[0].locked_by?.includes(`:${proc.child.pid}:`)) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        proc.child.kill('SIGKILL');
        await once(proc.child, 'exit');
      }
      // a new worker takes the exhausted job over once the last lease ran out, and fails it
      await startWorker();
      for (;;) {
        const task = await readTask(db, id);
        if (TERMINAL.includes(task.status)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const task = await readTask(db, id);
      expect(task).toMatchObject({ status: 'failed', refund: task.cost });
      expect((task.result as { code?: string }).code).toBe('worker_lost');
      expect((await ledgerOf(db, id)).map((l) => l.source_key)).toEqual([`hold:${id}`, `refund:${id}`]);
    }, 90_000);
  });
}
