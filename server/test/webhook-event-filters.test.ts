import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createWebhookService } from '../src/webhooks/index.ts';
import { isEventWanted, normalizeWebhookEvents } from '../src/webhooks/webhook-events.ts';
import { sendTaskWebhooks } from '../src/webhooks/task-webhooks.ts';
import { asDashboard, captureLogger, createUser, expectErrorBody, post, type TestUser } from './helpers.ts';
import { grantCredits, openTestDb, scriptedEngine, taskHarness, waitForTask, type TaskHarness } from './support/tasks.ts';

describe('webhook event filter rules', () => {
  it.each([
    [null, null],
    [[], []],
    [
      ['task.failed', 'completed', 'failed'],
      ['completed', 'failed'],
    ],
    [['progress', 'task.progress'], ['progress']],
  ] as const)('normalizes %j to %j', (input, expected) => {
    expect(normalizeWebhookEvents(input)).toEqual(expected);
  });

  it.each([
    ['task.progress', {}, true],
    ['task.progress', { account: ['completed'] }, false],
    ['task.progress', { account: ['completed'], request: ['progress'] }, true],
    ['task.completed', { account: ['completed'], request: ['progress'] }, false],
    ['task.failed', { request: [] }, false],
    ['webhook.test', { account: [] }, true],
  ] as const)('%s with %j is sent: %s', (event, filters, expected) => {
    expect(isEventWanted(event, filters)).toBe(expected);
  });
});

// Issue 23, part 4: the account filter and a request's webhook_events choose which events are
// recorded (and so sent); the others never become deliveries.
describe.each(testDatabaseKinds())('webhook event filters on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;
  const ACCOUNT_URL = 'https://hooks.example/account';
  const REQUEST_URL = 'https://hooks.example/request';

  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db, [scriptedEngine()]);
    const log = captureLogger();
    // no dispatcher: the recorded deliveries stay in the table to be looked at
    const webhooks = createWebhookService({ db, log, allowPrivateTargets: true });
    const worker = h.worker();
    sendTaskWebhooks({ db, events: worker, webhooks, log });
    await worker.start();
    user = await createUser(db);
    await grantCredits(db, user.id, 500);
    const set = await post(h.app, '/auth/updateWebhookURL', { ...asDashboard(user), json: { url: ACCOUNT_URL } });
    expect(set.status).toBe(200);
  });
  afterAll(async () => {
    await h?.cleanup();
    await db?.close();
  });

  const setAccountFilter = async (events: unknown) => {
    const res = await post(h.app, '/auth/webhook-events', { ...asDashboard(user), json: { events } });
    expect(res.status).toBe(200);
    return res.json();
  };

  /** Submits, waits for the end (and the progress events' enqueues), answers the recorded events by url. */
  const run = async (json: Record<string, unknown>) => {
    const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json });
    expect(res.status).toBe(200);
    const { task_id } = (await res.json()) as { task_id: string };
    await waitForTask(db, task_id);
    await new Promise((r) => setTimeout(r, 400));
    const { rows } = await db.query<{ url: string; event: string }>('select url, event from public.webhook_deliveries where task_id = $1', [task_id]);
    return rows.map((r) => `${r.url === ACCOUNT_URL ? 'account' : 'request'} ${r.event}`);
  };

  it('sends every event by default, as before', async () => {
    expect(await (await h.app.request('/auth/webhook-events', { headers: { authorization: user.apiKey } })).json()).toEqual({ webhook_events: null });
    const events = await run({ prompt: 'slow:400' });
    expect(events).toContain('account task.progress');
    expect(events).toContain('account task.completed');
  });

  it('records only the events of the account filter, and reads it back', async () => {
    expect(await setAccountFilter(['task.failed', 'completed'])).toEqual({ webhook_events: ['completed', 'failed'] });
    expect(await (await h.app.request('/auth/webhook-events', { headers: { authorization: user.apiKey } })).json()).toEqual({
      webhook_events: ['completed', 'failed'],
    });
    expect(await run({ prompt: 'slow:400' })).toEqual(['account task.completed']);
    expect(await run({ prompt: 'fail:boom' })).toEqual(['account task.failed']);
    // the account filter also applies to a request's own URL when the request names no events
    expect(await run({ prompt: 'slow:400', webhook_url: REQUEST_URL })).toEqual(['request task.completed']);
  });

  it("lets a request's webhook_events replace the account filter for its task", async () => {
    await setAccountFilter(['completed']);
    const progressOnly = await run({ prompt: 'slow:400', webhook_url: REQUEST_URL, webhook_events: ['progress'] });
    expect(progressOnly.length).toBeGreaterThan(0);
    expect(new Set(progressOnly)).toEqual(new Set(['request task.progress']));
    // no URL of its own: the account URL, with the request's events
    expect(await run({ prompt: 'fail:x', webhook_events: ['failed'] })).toEqual(['account task.failed']);
    expect(await run({ prompt: 'plain', webhook_events: ['failed'] })).toEqual([]);
    expect(await run({ prompt: 'plain', webhook_url: REQUEST_URL, webhook_events: [] })).toEqual([]);
    const { rows } = await db.query(
      "select w.events from public.task_webhooks w join public.tasks t on t.id = w.task_id where t.user_id = $1 and w.url is null and w.events = '{failed}'",
      [user.id],
    );
    expect(rows.length).toBe(2);
  });

  it('goes back to every event when the filter is reset with null', async () => {
    expect(await setAccountFilter(null)).toEqual({ webhook_events: null });
    const events = await run({ prompt: 'slow:400' });
    expect(events).toContain('account task.progress');
    expect(events).toContain('account task.completed');
  });

  it('refuses unknown event names with a 400 naming the field, creating nothing', async () => {
    const before = await db.query('select count(*)::int as n from public.tasks where user_id = $1', [user.id]);
    const bad = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'x', webhook_events: ['completed', 'started'] } });
    expect(bad.status).toBe(400);
    expect((await expectErrorBody(bad)).msg).toMatch(/^webhook_events\.1: Must be one of progress, completed, failed/);
    const v1 = await post(h.app, '/imagine', { key: user.apiKey, json: { prompt: 'x', webhook_events: 'completed' } });
    expect(v1.status).toBe(400);
    expect((await expectErrorBody(v1)).msg).toMatch(/^webhook_events: /);
    const account = await post(h.app, '/auth/webhook-events', { ...asDashboard(user), json: { events: ['done'] } });
    expect(account.status).toBe(400);
    expect((await expectErrorBody(account)).msg).toMatch(/^events\.0: Must be one of progress, completed, failed/);
    const after = await db.query('select count(*)::int as n from public.tasks where user_id = $1', [user.id]);
    expect(after.rows).toEqual(before.rows);
  });

  it('needs the dashboard session to change the filter, the API key to read it', async () => {
    const res = await post(h.app, '/auth/webhook-events', { key: user.apiKey, json: { events: [] } });
    expect(res.status).toBe(403);
    expect((await h.app.request('/auth/webhook-events')).status).toBe(401);
  });
});
