import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createApiApp } from '../src/app.ts';
import { createLogger, detachLogContext, withLogContext } from '../src/logger.ts';
import { observeJob } from '../src/observability/job-log.ts';
import { createTaskEvents } from '../src/services/tasks/task-events.ts';
import { createWebhookService, type WebhookService } from '../src/webhooks/index.ts';
import { sendTaskWebhooks } from '../src/webhooks/task-webhooks.ts';
import { createUser, post, testConfig, type TestUser } from './helpers.ts';
import { grantCredits, openTestDb, scriptedEngine, taskHarness, type TaskHarness, waitForTask } from './support/tasks.ts';

interface Line {
  level: string;
  time: string;
  pid: number;
  role: string;
  msg: string;
  [field: string]: unknown;
}

/** A JSON logger of `role` whose lines land in `raw` (the exact text) and `lines` (parsed). */
function jsonCapture() {
  const raw: string[] = [];
  const destination = { write: (s: string) => void raw.push(s) };
  return {
    raw,
    lines: () => raw.map((s) => JSON.parse(s) as Line),
    logger: (role: 'api' | 'worker') => createLogger({ role, destination }),
  };
}

describe('JSON log lines', () => {
  it('should write one JSON object per line with level, ISO time, pid, role and message, and the caller’s fields', () => {
    const out = jsonCapture();
    const log = out.logger('api');
    log.info('hello', { task_id: 't-1', n: 3, skipped: undefined });
    log.warn('careful');
    log.error('broken', { error: 'boom' });
    expect(out.raw.every((s) => s.endsWith('\n') && s.indexOf('\n') === s.length - 1)).toBe(true);
    const [info, warn, error] = out.lines();
    expect(info).toEqual({ level: 'info', time: expect.any(String), pid: process.pid, role: 'api', task_id: 't-1', n: 3, msg: 'hello' });
    expect(new Date(info.time).toISOString()).toBe(info.time);
    expect(warn).toMatchObject({ level: 'warn', msg: 'careful' });
    expect(error).toMatchObject({ level: 'error', msg: 'broken', error: 'boom' });
  });

  it('should give a child its own role once (embedded mode’s worker says worker) and keep its fields', () => {
    const out = jsonCapture();
    const worker = out.logger('api').child({ role: 'worker', engine: 'local' });
    worker.info('job claimed', { attempt: 1 });
    worker.child({ shard: 2 }).info('deeper');
    expect(out.raw[0].match(/"role"/g)).toHaveLength(1);
    expect(out.lines()).toEqual([
      expect.objectContaining({ role: 'worker', engine: 'local', attempt: 1, msg: 'job claimed' }),
      expect.objectContaining({ role: 'worker', engine: 'local', shard: 2, msg: 'deeper' }),
    ]);
  });

  it('should redact fields that name a secret, should a caller ever pass one', () => {
    const out = jsonCapture();
    out.logger('api').info('oops', { api_key: 'k-123', authorization: 'Bearer x', webhook_secret: 'w', token: 't', user_id: 'u' });
    expect(out.raw[0]).not.toMatch(/k-123|Bearer x|"w"|"t"/);
    expect(out.lines()[0]).toMatchObject({ api_key: '[redacted]', authorization: '[redacted]', webhook_secret: '[redacted]', user_id: 'u' });
  });

  it('should add the log context to every line inside it, let a line’s own field win, and leave detached work out', async () => {
    const out = jsonCapture();
    const log = out.logger('worker');
    let detached: Promise<void> | undefined;
    await withLogContext({ request_id: 'req-1' }, async (store) => {
      log.info('inside');
      await new Promise((r) => setTimeout(r, 1));
      store.task_id = 'task-1';
      log.info('later');
      log.info('explicit', { request_id: 'req-other' });
      detached = new Promise<void>((resolve) =>
        setTimeout(
          detachLogContext(() => resolve(log.info('detached'))),
          1,
        ),
      );
    });
    await detached;
    log.info('outside');
    const byMsg = Object.fromEntries(out.lines().map((l) => [l.msg, l]));
    expect(byMsg.inside).toMatchObject({ request_id: 'req-1' });
    expect(byMsg.inside).not.toHaveProperty('task_id');
    expect(byMsg.later).toMatchObject({ request_id: 'req-1', task_id: 'task-1' });
    expect(byMsg.explicit.request_id).toBe('req-other');
    expect(byMsg.detached).not.toHaveProperty('request_id');
    expect(byMsg.outside).not.toHaveProperty('request_id');
  });
});

describe('a job’s log context', () => {
  it('should be the job’s own, whatever context woke the worker (a NOTIFY inside another request)', async () => {
    const out = jsonCapture();
    const log = out.logger('worker');
    const db = { query: async () => ({ rows: [{ request_id: null }] }) } as unknown as Db;
    const events = createTaskEvents();
    await withLogContext({ request_id: 'waking-request' }, () =>
      observeJob({ db, log, events }, { task_id: 'task-9', queue: 'local', attempts: 1 }, async () => log.info('running')),
    );
    const lines = out.lines();
    expect(lines.map((l) => l.msg)).toEqual(['job claimed', 'running', 'job finished']);
    for (const line of lines) {
      expect(line.task_id).toBe('task-9');
      expect(line).not.toHaveProperty('request_id');
    }
    expect(lines[2]).toMatchObject({ outcome: 'abandoned', engine: 'local', ms: expect.any(Number) });
  });
});

// One grep for the request id follows a task: the API's request line, the worker's claim and
// finish lines (and anything the run logs), and the webhook dispatcher's attempt lines.
describe.each(testDatabaseKinds())('following a request id end to end on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let app: ReturnType<typeof createApiApp>;
  let webhooks: WebhookService;
  let user: TestUser;
  let receiver: http.Server;
  let receiverUrl: string;
  const completed = new Set<string>();
  const out = jsonCapture();

  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db, [scriptedEngine()]);
    const apiLog = out.logger('api');
    app = createApiApp({ db, config: testConfig, log: apiLog, media: h.media, engines: h.engines });
    // as embedded mode wires it: the worker and its webhook bridge log as role worker
    const workerLog = apiLog.child({ role: 'worker' });
    webhooks = createWebhookService({ db, log: apiLog, allowPrivateTargets: true, pollIntervalMs: 50 });
    const worker = h.worker({ log: workerLog });
    sendTaskWebhooks({ db, events: worker, webhooks, log: workerLog });
    webhooks.start();
    await worker.start();
    user = await createUser(db);
    await grantCredits(db, user.id, 100);
    receiver = http.createServer((req, res) => {
      if (req.headers['x-webhook-event'] === 'task.completed' || req.headers['x-webhook-event'] === 'task.failed') {
        let body = '';
        req.on('data', (d) => (body += d));
        req.on('end', () => completed.add((JSON.parse(body) as { task_id: string }).task_id));
      }
      res.writeHead(204).end();
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    await webhooks?.stop();
    await h?.cleanup();
    await new Promise((r) => receiver?.close(r));
    await db?.close();
  });

  async function submit(prompt: string, requestId?: string) {
    const res = await post(app, '/pro/imagine', {
      key: user.apiKey,
      json: { prompt, webhook_url: receiverUrl },
      headers: requestId ? { 'x-request-id': requestId } : {},
    });
    expect(res.status).toBe(200);
    const { task_id } = (await res.json()) as { task_id: string };
    return { taskId: task_id, requestId: res.headers.get('x-request-id') ?? '' };
  }

  /** The captured lines with this request id, once the webhook dispatcher has logged the final attempt. */
  async function linesOf(requestId: string, taskId: string) {
    await waitForTask(db, taskId);
    const deadline = Date.now() + 15_000;
    const finalAttempt = (l: Line) => l.msg === 'webhook attempt' && l.task_id === taskId && String(l.event) !== 'task.progress';
    while (!(completed.has(taskId) && out.lines().some(finalAttempt) && out.lines().some((l) => l.msg === 'job finished' && l.task_id === taskId))) {
      if (Date.now() > deadline) throw new Error(`no final webhook attempt logged for ${taskId}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    // the grep: every line whose text holds the id
    return out.raw.filter((s) => s.includes(requestId)).map((s) => JSON.parse(s) as Line);
  }

  it('should carry an incoming X-Request-Id from the request through the job, the worker and the webhook deliveries', async () => {
    const { taskId, requestId } = await submit('a quiet lake', 'trace-ok-1');
    expect(requestId).toBe('trace-ok-1');
    const { rows } = await db.query<{ request_id: string }>('select request_id from public.task_jobs where task_id = $1', [taskId]);
    expect(rows[0].request_id).toBe('trace-ok-1');

    const lines = await linesOf(requestId, taskId);
    for (const line of lines) expect(line.request_id).toBe(requestId);
    expect(lines).toContainEqual(expect.objectContaining({ role: 'api', msg: 'request', route: '/pro/imagine', status: 200 }));
    expect(lines).toContainEqual(expect.objectContaining({ role: 'worker', msg: 'job claimed', task_id: taskId, engine: 'local', attempt: 1 }));
    expect(lines).toContainEqual(expect.objectContaining({ role: 'worker', msg: 'job finished', task_id: taskId, outcome: 'success', ms: expect.any(Number) }));
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'webhook attempt', task_id: taskId, event: 'task.completed', status: 'delivered' }));
    // in that order: request, claimed, finished
    const order = lines.map((l) => l.msg).filter((m) => m !== 'webhook attempt');
    expect(order.indexOf('request')).toBeLessThan(order.indexOf('job claimed'));
    expect(order.indexOf('job claimed')).toBeLessThan(order.indexOf('job finished'));
  });

  it('should keep request ids away from users: task_jobs and the submit function stay closed to the client roles', async () => {
    for (const role of ['anon', 'authenticated']) {
      await expect(
        db.transaction(async (tx) => {
          await tx.query(`set local role ${role}`);
          await tx.query('select request_id from public.task_jobs limit 1');
        }),
        role,
      ).rejects.toThrow(/permission denied/);
    }
    // every form of the submit function (the current one takes the request id and the API key id)
    const { rows } = await db.query<{ role: string; submit: boolean }>(
      `select r as role, bool_and(has_function_privilege(r, p.oid, 'execute')) as submit
         from unnest(array['anon', 'authenticated', 'service_role']) r
         cross join pg_proc p join pg_namespace n on n.oid = p.pronamespace and n.nspname = 'public'
        where p.proname = 'submit_task'
        group by r order by r`,
    );
    const forms = await db.query<{ args: string }>(
      `select pg_get_function_identity_arguments(p.oid) as args from pg_proc p join pg_namespace n on n.oid = p.pronamespace
        where n.nspname = 'public' and p.proname = 'submit_task'`,
    );
    expect(forms.rows.some((f) => f.args.includes('p_request_id text') && f.args.includes('p_api_key_id uuid'))).toBe(true);
    expect(rows).toEqual([
      { role: 'anon', submit: false },
      { role: 'authenticated', submit: false },
      { role: 'service_role', submit: true },
    ]);
  });

  it('should generate an id when none (or an unsafe one) comes in, answer it, and follow a failed task with it too', async () => {
    const unsafe = 'bad id"},{"level":"error';
    const res = await post(app, '/pro/imagine', {
      key: user.apiKey,
      json: { prompt: 'fail:scripted', webhook_url: receiverUrl },
      headers: { 'x-request-id': unsafe },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id') ?? '';
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const { task_id: taskId } = (await res.json()) as { task_id: string };
    const lines = await linesOf(requestId, taskId);
    expect(out.raw.join('')).not.toContain('bad id');
    expect(lines).toContainEqual(expect.objectContaining({ role: 'worker', msg: 'job finished', task_id: taskId, outcome: 'failed' }));
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'webhook attempt', task_id: taskId, event: 'task.failed', status: 'delivered' }));

    // another request's lines never carry this id
    const other = await submit('another lake');
    const otherLines = await linesOf(other.requestId, other.taskId);
    expect(otherLines.length).toBeGreaterThan(2);
    expect(otherLines.every((l) => l.request_id === other.requestId)).toBe(true);
    expect(out.lines().filter((l) => l.task_id === other.taskId && l.request_id === requestId)).toEqual([]);
  });
});
