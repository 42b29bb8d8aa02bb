import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync, symlinkSync, mkdirSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Db } from '@aim/supabase/db';
import { createTestDb, freePort } from '@aim/supabase/testing';
import { createWebhookService, type WebhookService } from '../src/webhooks/index.ts';
import { toStandardSecret } from '../src/webhooks/signature.ts';
import { asDashboard, captureLogger, createUser, post, testApp, type TestUser } from './helpers.ts';

// Real deliveries, verified by the official Standard Webhooks library for Node (`standardwebhooks`)
// and by the docs' samples in docs/webhooks/, each run for real as the receiver (Node with the
// official library, Python with the standard library only, PHP's built-in server) or as a shell
// command (openssl + curl). The official Python library cannot be installed here (no PyPI): the
// Python sample follows its algorithm.

const here = path.dirname(fileURLToPath(import.meta.url));
const docs = path.resolve(here, '../../docs/webhooks');

type Received = { headers: Record<string, string>; body: string };

/** A receiver that records each request raw and answers 200. */
async function startRecorder() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Starts a sample receiver; resolves once it said it listens, with everything it prints. */
async function startSample(cmd: string, args: string[], opts: { cwd: string; env: Record<string, string>; ready: RegExp; url?: string }) {
  const child: ChildProcess = spawn(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = opts.ready.exec(output);
      if (m) resolve(opts.url ?? `http://127.0.0.1:${m[1]}/hook`);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${cmd} exited (${code}): ${output}`)));
  });
  return {
    url,
    output: () => output,
    /** Resolves once the sample printed `text` (it prints after answering, so the output may lag). */
    printed: (text: string) =>
      new Promise<string>((resolve, reject) => {
        const check = () => {
          if (output.includes(text)) resolve(output);
          else if (child.exitCode !== null) reject(new Error(`exited before printing ${text}: ${output}`));
          else setTimeout(check, 20);
        };
        check();
      }),
    stop: () =>
      new Promise<void>((r) => {
        if (child.exitCode !== null) return r();
        child.once('exit', () => r());
        child.kill();
      }),
  };
}

describe('webhook signatures interoperate with the official library and the docs samples', () => {
  let db: Db;
  let app: ReturnType<typeof testApp>;
  let user: TestUser;
  let webhooks: WebhookService;
  let accountSecret: string;
  let previousSecret: string;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    db = await createTestDb('pglite');
    app = testApp(db);
    user = await createUser(db);
    webhooks = createWebhookService({ db, log: captureLogger(), allowPrivateTargets: true, timeoutMs: 5000 });
    // a rotated account: deliveries carry two signatures for 24 h
    previousSecret = (
      (await (await app.request('/auth/webhook-signing-secret', { headers: { authorization: user.apiKey, 'x-session-token': user.session } })).json()) as {
        secret: string;
      }
    ).secret;
    const rotated = (await (await post(app, '/auth/webhook-signing-secret/rotate', { ...asDashboard(user) })).json()) as { secret: string };
    accountSecret = rotated.secret;
  });
  afterAll(async () => {
    await webhooks.stop();
    await db?.close();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  /** Sends one real completion delivery to `url` and answers its id and final row. */
  async function deliver(url: string, secret?: string) {
    const taskId = randomUUID();
    const payload = { task_id: taskId, status: 'finished', percentage: '100', image_urls: ['https://media.test/ü.png'] };
    const id = (await webhooks.enqueue({ userId: user.id, taskId, url, secret, event: 'task.completed', payload })) as string;
    await webhooks.dispatchDue();
    const { rows } = await db.query<{ status: string; last_status_code: number | null }>(
      'select status, last_status_code from public.webhook_deliveries where id = $1',
      [id],
    );
    return { id, taskId, ...rows[0] };
  }

  async function recorder() {
    const r = await startRecorder();
    closers.push(r.close);
    return r;
  }

  it('the official Node library verifies a delivery with the account secret as the dashboard shows it (old and new during the overlap)', async () => {
    const rx = await recorder();
    const { taskId } = await deliver(rx.url);
    const [hit] = rx.received;
    expect(accountSecret).toMatch(/^whsec_/);
    for (const secret of [accountSecret, previousSecret]) expect(new Webhook(secret).verify(hit.body, hit.headers)).toMatchObject({ task_id: taskId });
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(hit.body, hit.headers)).toThrow();
    expect(() => new Webhook(accountSecret).verify(hit.body.replace('finished', 'failed'), hit.headers)).toThrow();
  });

  it('a per-request webhook_secret: whsec_… is the key as is; any other string is its UTF-8 bytes, i.e. whsec_ + base64(UTF-8)', async () => {
    const rx = await recorder();
    const whsec = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
    await deliver(rx.url, whsec);
    await deliver(rx.url, 'my søcret');
    const [a, b] = rx.received;
    expect(new Webhook(whsec).verify(a.body, a.headers)).toBeDefined();
    expect(a.headers['x-webhook-secret']).toBe(whsec);
    expect(toStandardSecret('my søcret')).toBe(`whsec_${Buffer.from('my søcret', 'utf8').toString('base64')}`);
    expect(new Webhook(toStandardSecret('my søcret')).verify(b.body, b.headers)).toBeDefined();
    expect(new Webhook(Buffer.from('my søcret', 'utf8'), { format: 'raw' }).verify(b.body, b.headers)).toBeDefined();
    // one signature only: a per-request secret is the only key of its deliveries
    expect(b.headers['webhook-signature'].split(' ')).toHaveLength(1);
    expect(() => new Webhook(accountSecret).verify(b.body, b.headers)).toThrow();
  });

  it('docs/webhooks/verify.mjs (official Node library) accepts real deliveries and refuses a tampered one', async () => {
    // the sample imports `standardwebhooks` as a user's project would: give it a node_modules
    const dir = mkdtempSync(path.join(os.tmpdir(), 'aim-verify-mjs-'));
    closers.push(async () => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(path.join(dir, 'node_modules'));
    symlinkSync(path.resolve(here, '../node_modules/standardwebhooks'), path.join(dir, 'node_modules/standardwebhooks'));
    copyFileSync(path.join(docs, 'verify.mjs'), path.join(dir, 'verify.mjs'));
    const sample = await startSample(process.execPath, ['verify.mjs'], {
      cwd: dir,
      env: { WEBHOOK_SECRET: previousSecret, PORT: '0' },
      ready: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
    });
    closers.push(sample.stop);
    const d = await deliver(sample.url);
    expect(d).toMatchObject({ status: 'delivered', last_status_code: 204 });
    const tampered = await fetch(sample.url, {
      method: 'POST',
      body: '{}',
      headers: { 'webhook-id': d.id, 'webhook-timestamp': '1', 'webhook-signature': 'v1,x' },
    });
    expect(tampered.status).toBe(400);
    await sample.printed(`"verified":true,"id":"${d.id}","event":"task.completed","task_id":"${d.taskId}"`);
  });

  it('docs/webhooks/verify.py (Python standard library) accepts real deliveries, account and per-request secrets, and refuses others', async () => {
    for (const [env, secret] of [
      [accountSecret, undefined],
      ['plain request secret', 'plain request secret'],
    ] as const) {
      const sample = await startSample('python3', [path.join(docs, 'verify.py')], {
        cwd: docs,
        env: { WEBHOOK_SECRET: env, PORT: '0' },
        ready: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
      });
      closers.push(sample.stop);
      const d = await deliver(sample.url, secret);
      expect(d).toMatchObject({ status: 'delivered', last_status_code: 204 });
      await sample.printed(`"verified": true, "id": "${d.id}", "event": "task.completed", "task_id": "${d.taskId}"`);
    }
    // a delivery signed with another key is refused (and retried later)
    const sample = await startSample('python3', [path.join(docs, 'verify.py')], {
      cwd: docs,
      env: { WEBHOOK_SECRET: 'not the secret', PORT: '0' },
      ready: /listening on http:\/\/127\.0\.0\.1:(\d+)/,
    });
    closers.push(sample.stop);
    expect(await deliver(sample.url)).toMatchObject({ status: 'pending', last_status_code: 400 });
    await sample.printed('"reason": "no matching signature"');
  });

  it('docs/webhooks/verify.php (PHP built-in server) accepts real deliveries and refuses another key', async () => {
    const port = await freePort();
    const run = (secret: string) =>
      startSample('php', ['-S', `127.0.0.1:${port}`, path.join(docs, 'verify.php')], {
        cwd: docs,
        env: { WEBHOOK_SECRET: secret },
        ready: /Development Server \(http:\/\/127\.0\.0\.1:(\d+)\) started/,
      });
    let sample = await run(accountSecret);
    const d = await deliver(sample.url);
    expect(d).toMatchObject({ status: 'delivered', last_status_code: 204 });
    await sample.printed(`{"verified":true,"id":"${d.id}","task_id":"${d.taskId}"}`);
    await sample.stop();
    sample = await run(`whsec_${Buffer.alloc(32, 9).toString('base64')}`);
    closers.push(sample.stop);
    expect(await deliver(sample.url)).toMatchObject({ status: 'pending', last_status_code: 400 });
  });

  it('docs/webhooks/verify-curl.sh verifies a captured delivery with openssl, and its curl send passes the official library', async () => {
    const rx = await recorder();
    await deliver(rx.url);
    const [hit] = rx.received;
    const verify = (secret: string, body = hit.body) =>
      spawnSync(
        'bash',
        [path.join(docs, 'verify-curl.sh'), 'verify', hit.headers['webhook-id'], hit.headers['webhook-timestamp'], hit.headers['webhook-signature']],
        {
          input: body,
          env: { ...process.env, WEBHOOK_SECRET: secret },
          encoding: 'utf8',
        },
      );
    for (const secret of [accountSecret, previousSecret]) expect(verify(secret)).toMatchObject({ status: 0, stdout: 'verified\n' });
    expect(verify(accountSecret, `${hit.body} `)).toMatchObject({ status: 1, stderr: 'no matching signature\n' });

    // send: the official Node library, on a receiver, accepts what the script signs (plain and whsec secrets)
    for (const secret of [accountSecret, 'plain request secret']) {
      const got: Received[] = [];
      const server = http.createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          got.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
      const sent = await new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn('bash', [path.join(docs, 'verify-curl.sh'), 'send', url], { env: { ...process.env, WEBHOOK_SECRET: secret } });
        let out = '';
        child.stdout.on('data', (c: Buffer) => {
          out += c.toString();
        });
        child.on('exit', (code) => resolve({ code, out }));
        child.stdin.end('{"task_id":"t-1","status":"finished"}');
      });
      await new Promise<void>((r) => server.close(() => r()));
      expect(sent).toEqual({ code: 0, out: '204\n' });
      expect(new Webhook(toStandardSecret(secret)).verify(got[0].body, got[0].headers)).toEqual({ task_id: 't-1', status: 'finished' });
    }
  });
});
