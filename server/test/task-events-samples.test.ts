/**
 * The docs' task-event clients (docs/events/: Node.js, Python, PHP, curl) run for real against
 * the API served over HTTP: each follows a task to its terminal event and exits; the Node,
 * Python and PHP clients also ride out an API restart mid-task (the first instance's streams
 * end, a second instance on the same database takes over) and resume with Last-Event-ID, so
 * they print the step made while they were away and never a step twice.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { createTestDb } from '@aim/supabase/testing';
import { createApiApp } from '../src/app.ts';
import { taskRepository } from '../src/repositories/task-repository.ts';
import { createTaskEventHub, type TaskEventHub } from '../src/services/task-events/task-event-hub.ts';
import { captureLogger, createUser, testConfig, type TestUser } from './helpers.ts';

const docs = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../docs/events');

function apiInstance(db: Db) {
  const log = captureLogger();
  const hub: TaskEventHub = createTaskEventHub({ db, log });
  return { app: createApiApp({ db, config: testConfig, log, taskEvents: hub }), hub };
}

interface Sample {
  child: ChildProcess;
  output: () => string;
  /** Resolves once stdout holds `text`. */
  printed(text: string | RegExp): Promise<void>;
  exited: Promise<number | null>;
}

function run(cmd: string, args: string[], env: Record<string, string>): Sample {
  const child = spawn(cmd, args, { cwd: docs, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => `${stdout}\n--- stderr ---\n${stderr}`,
    exited,
    printed: (text) =>
      new Promise((resolve, reject) => {
        const deadline = Date.now() + 15_000;
        const check = () => {
          if (typeof text === 'string' ? stdout.includes(text) : text.test(stdout)) resolve();
          else if (child.exitCode !== null || Date.now() > deadline) reject(new Error(`never printed ${text}: ${stdout}\n${stderr}`));
          else setTimeout(check, 20);
        };
        check();
      }),
  };
}

describe('the docs/events clients against a running API', () => {
  let db: Db;
  let current: ReturnType<typeof apiInstance>;
  let server: ReturnType<typeof serve>;
  let apiUrl: string;
  let user: TestUser;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    db = await createTestDb('pglite');
    current = apiInstance(db);
    // the port's requests go to whichever instance is current: a restart swaps it
    server = serve({ fetch: (req) => current.app.fetch(req), port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    user = await createUser(db);
  });
  afterAll(async () => {
    for (const child of children) child.kill('SIGKILL');
    await current?.hub.close();
    await new Promise((resolve) => server?.close(resolve));
    await db?.close();
  });

  async function newTask(): Promise<string> {
    const { rows } = await db.query<{ id: string }>(
      `insert into public.tasks (user_id, email, type, status, prompt, cost) values ($1, $2, 'faceswap', 'pending', null, 4) returning id`,
      [user.id, user.email],
    );
    return rows[0].id;
  }

  async function restartApi() {
    const stopping = current;
    current = apiInstance(db);
    await stopping.hub.close();
  }

  const samples: [string, string, string[]][] = [
    ['Node.js', process.execPath, ['events.mjs']],
    ['Python', 'python3', ['events.py']],
    ['PHP', 'php', ['events.php']],
  ];

  it.each(samples)(
    '%s: follows a task to completed across an API restart, resuming with Last-Event-ID',
    async (_name, cmd, args) => {
      const taskId = await newTask();
      const tasks = taskRepository(db);
      const sample = run(cmd, [...args, taskId], { AIM_API_URL: apiUrl, AIM_API_KEY: user.apiKey });
      children.push(sample.child);
      await sample.printed(`progress`);
      await tasks.recordProgress(taskId, 25, 'running');
      await sample.printed(' processing 25');
      await restartApi();
      // made while the client was away (it waits `retry` before reconnecting)
      await tasks.recordProgress(taskId, 50, 'running');
      await sample.printed(' processing 50');
      await tasks.markSucceeded(taskId, { imageUrl: 'http://localhost:8080/media/swap.png', imageUrls: null, seed: null, result: {} });
      expect(await sample.exited).toBe(0);
      const lines = sample
        .output()
        .split('\n--- stderr ---\n')[0]
        .trim()
        .split('\n')
        .map((line) => line.split(' '));
      expect(lines.map(([event, , id, status, pct]) => [event, id, status, pct])).toEqual([
        ['progress', taskId, 'pending', '0'],
        ['progress', taskId, 'processing', '25'],
        ['progress', taskId, 'processing', '50'],
        ['completed', taskId, 'finished', '100'],
      ]);
      expect(sample.output()).toMatch(/reconnecting after event \d+/);
    },
    30_000,
  );

  it('curl: prints the raw stream of a task and exits when it ends', async () => {
    const taskId = await newTask();
    const sample = run('bash', ['events-curl.sh', taskId], { AIM_API_URL: apiUrl, AIM_API_KEY: user.apiKey });
    children.push(sample.child);
    await sample.printed('event: progress');
    await taskRepository(db).markFailed(taskId, { message: 'No face found in the source image', code: 'no_face' }, 4);
    expect(await sample.exited).toBe(0);
    expect(sample.output()).toMatch(
      /retry: 3000\n: connected\n\nevent: progress\nid: \d+\ndata: \{"task_id":"[^"]+","task_type":"faceswap","status":"pending"/,
    );
    const failedId = /event: failed\nid: (\d+)\ndata: (.*)\n/.exec(sample.output());
    expect(JSON.parse(failedId?.[2] ?? '{}')).toMatchObject({ status: 'failed', message: 'No face found in the source image' });

    // resumed after the terminal event: 204, nothing printed, exit 0
    const again = run('bash', ['events-curl.sh', taskId], { AIM_API_URL: apiUrl, AIM_API_KEY: user.apiKey, LAST_EVENT_ID: failedId?.[1] ?? '' });
    expect(await again.exited).toBe(0);
    expect(again.output().trim()).toBe('--- stderr ---');
    // a wrong key: curl fails with the error body
    const refused = run('bash', ['events-curl.sh', taskId], { AIM_API_URL: apiUrl, AIM_API_KEY: 'nope' });
    expect(await refused.exited).not.toBe(0);
    expect(refused.output()).toContain('invalid_api_key');
  }, 30_000);

  it('a client that hangs up over HTTP frees its stream slot (the cap is 10 per account)', async () => {
    const owner = await createUser(db);
    const open = () => {
      const abort = new AbortController();
      return fetch(`${apiUrl}/events`, { headers: { authorization: owner.apiKey }, signal: abort.signal }).then((res) => ({ res, abort }));
    };
    const streams = await Promise.all(Array.from({ length: 10 }, open));
    expect(streams.map((s) => s.res.status)).toEqual(Array(10).fill(200));
    const refused = await open();
    expect(refused.res.status).toBe(429);
    for (const s of streams) s.abort.abort();
    let again = await open();
    for (let i = 0; again.res.status === 429 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 50));
      again = await open();
    }
    expect(again.res.status).toBe(200);
    again.abort.abort();
  });
});
