/**
 * Text the database cannot take: a NUL character in any field is a 400 naming the field (not
 * the 500 of Postgres' 22021), and so is a lone surrogate (invalid UTF-16, which used to be a
 * 500 in some routes and stored as U+FFFD in others). The fuzz (api-fuzz.test.ts) looks for
 * the rest.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { LONE_SURROGATE_MESSAGE, NUL_MESSAGE } from '../src/openapi/nul-guard.ts';
import { asDashboard, createUser, expectErrorBody, post, readUser, type TestUser } from './helpers.ts';
import { grantCredits, openTestDb, taskHarness, type TaskHarness } from './support/tasks.ts';

const NUL = 'a\u0000b';
// a lone low surrogate after a multi-byte character: PGlite used to send invalid UTF-8 for it
const LONE_SURROGATE = '氟\udd74';

// path, body with the NUL, the field the answer must name
const NUL_FIELDS: [string, Record<string, unknown>, string][] = [
  ['/pro/imagine', { prompt: NUL }, 'prompt'],
  ['/pro/imagine', { prompt: 'a fox', webhook_secret: NUL }, 'webhook_secret'],
  ['/pro/imagine', { prompt: 'a fox', webhook_url: `https://example.com/${NUL}` }, 'webhook_url'],
  ['/flux/imagine', { prompt: NUL }, 'prompt'],
  ['/ideogram/imagine', { prompt: NUL }, 'prompt'],
  ['/auth/updateWebhookURL', { url: `https://example.com/${NUL}` }, 'url'],
  ['/auth/make-default-payment-method', { paymentMethodId: NUL }, 'paymentMethodId'],
  ['/auth/remove-payment-method', { paymentMethodId: NUL }, 'paymentMethodId'],
  ['/auth/add-payment-method', { setupIntentId: NUL, paymentMethodId: 'pm_1' }, 'setupIntentId'],
  ['/auth/gen-invoice', { invoiceId: NUL }, 'invoiceId'],
  ['/auth/topup', { amount: NUL }, 'amount'],
  ['/auth/update-auto-topup', { auto_topup: false, auto_topup_min: 250, auto_topup_amount: NUL }, 'auto_topup_amount'],
  ['/billing/sandbox/confirm', { client_secret: NUL }, 'client_secret'],
  ['/billing/sandbox/confirm', { client_secret: 'pi_1_secret_2', payment_method: NUL }, 'payment_method'],
  [
    '/billing/sandbox/confirm',
    { client_secret: 'pi_1_secret_2', card: { number: '4242424242424242', exp_month: 12, exp_year: 2030, cvc: '1', name: NUL } },
    'card.name',
  ],
];

// the same fields with a lone surrogate instead, and the fields issue 21 found (a 500 for the
// song's title and tags, U+FFFD stored for the prompt and the webhook URL)
const LONE_SURROGATE_FIELDS: [string, Record<string, unknown>, string][] = [
  ['/suno-imagine', { prompt: 'a song about rain', title: 'Paris \ud800Rain' }, 'title'],
  ['/suno-imagine', { prompt: 'a song about rain', tags: 'jazz \udfff' }, 'tags'],
  ['/suno-imagine', { prompt: '\ud83d' }, 'prompt'],
  ['/pro/imagine', { prompt: '\ud800' }, 'prompt'],
  ['/auth/updateWebhookURL', { url: 'https://example.com/\ud800' }, 'url'],
  ...NUL_FIELDS.map(([path, body, field]): [string, Record<string, unknown>, string] => [
    path,
    JSON.parse(JSON.stringify(body).replaceAll('\\u0000', '\\udc00')),
    field,
  ]),
];

describe.each(testDatabaseKinds())('hostile text on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let user: TestUser;

  beforeAll(async () => {
    db = await openTestDb(kind);
    h = await taskHarness(db);
    user = await createUser(db);
    // enough credits that submissions reach the database
    await grantCredits(db, user.id, 10_000);
    await post(h.app, '/auth/createCustomer', { ...asDashboard(user) });
  });
  afterAll(async () => {
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await h?.cleanup();
    await db?.close();
  });

  it.each(NUL_FIELDS)('should answer a NUL in %s %j with 400 naming %s', async (path, body, field) => {
    const res = await post(h.app, path, { ...asDashboard(user), json: body });
    expect(res.status).toBe(400);
    expect(await expectErrorBody(res)).toEqual({ msg: `${field}: ${NUL_MESSAGE}`, code: 'validation_failed' });
  });

  it('should answer a NUL deep inside a value, or in a key, with 400 naming where it is', async () => {
    const deep = await post(h.app, '/auth/topup', { ...asDashboard(user), json: { amount: [{ x: [1, NUL] }] } });
    expect(await expectErrorBody(deep)).toEqual({ msg: `amount.0.x.1: ${NUL_MESSAGE}`, code: 'validation_failed' });
    const key = await post(h.app, '/auth/topup', { ...asDashboard(user), json: { amount: { [NUL]: 1 } } });
    expect(await expectErrorBody(key)).toEqual({ msg: `amount: ${NUL_MESSAGE}`, code: 'validation_failed' });
  });

  it('should answer a NUL in a path parameter with 400 naming it', async () => {
    const res = await h.app.request('/media/a%00b.png');
    expect(res.status).toBe(400);
    expect(await expectErrorBody(res)).toEqual({ msg: `key: ${NUL_MESSAGE}`, code: 'validation_failed' });
  });

  it('should keep a field that fails its schema reported as before', async () => {
    const res = await post(h.app, '/fetch', { key: user.apiKey, json: { task_id: NUL } });
    expect(await expectErrorBody(res)).toEqual({ msg: 'task_id: Must be a task id', code: 'validation_failed' });
  });

  it.each(LONE_SURROGATE_FIELDS)('should answer a lone surrogate in %s %j with 400 naming %s', async (path, body, field) => {
    const res = await post(h.app, path, { ...asDashboard(user), json: body });
    expect(res.status).toBe(400);
    expect(await expectErrorBody(res)).toEqual({ msg: `${field}: ${LONE_SURROGATE_MESSAGE}`, code: 'validation_failed' });
  });

  it('should answer a lone surrogate sent as JSON text, deep inside a value, or in a key, with 400 naming where it is', async () => {
    // as a client sends it: the escape in the JSON text (JSON.stringify escapes lone surrogates too)
    const raw = await post(h.app, '/pro/imagine', { key: user.apiKey, json: '{"prompt":"a fox \\ud800"}' });
    expect(await expectErrorBody(raw)).toEqual({ msg: `prompt: ${LONE_SURROGATE_MESSAGE}`, code: 'validation_failed' });
    // a lone low surrogate after a multi-byte character (PGlite once sent invalid UTF-8 for it)
    const afterCjk = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: LONE_SURROGATE } });
    expect(await expectErrorBody(afterCjk)).toEqual({ msg: `prompt: ${LONE_SURROGATE_MESSAGE}`, code: 'validation_failed' });
    // a pair in the wrong order is two lone halves
    const reversed = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: '\ude00\ud83d' } });
    expect(await expectErrorBody(reversed)).toEqual({ msg: `prompt: ${LONE_SURROGATE_MESSAGE}`, code: 'validation_failed' });
    const deep = await post(h.app, '/auth/topup', { ...asDashboard(user), json: { amount: [{ x: [1, '\ud800'] }] } });
    expect(await expectErrorBody(deep)).toEqual({ msg: `amount.0.x.1: ${LONE_SURROGATE_MESSAGE}`, code: 'validation_failed' });
    const key = await post(h.app, '/auth/topup', { ...asDashboard(user), json: { amount: { '\udc00': 1 } } });
    expect(await expectErrorBody(key)).toEqual({ msg: `amount: ${LONE_SURROGATE_MESSAGE}`, code: 'validation_failed' });
  });

  it('should store nothing from a request refused for a lone surrogate', async () => {
    const stored = await post(h.app, '/auth/updateWebhookURL', { ...asDashboard(user), json: { url: 'https://example.com/hooks' } });
    expect(stored.status).toBe(200);
    const tasks = async () => (await db.query<{ n: number }>('select count(*)::int as n from public.tasks where user_id = $1', [user.id])).rows[0].n;
    const before = await tasks();

    expect((await post(h.app, '/auth/updateWebhookURL', { ...asDashboard(user), json: { url: 'https://example.com/\ud800' } })).status).toBe(400);
    expect((await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'a fox \udfff' } })).status).toBe(400);
    expect((await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'a fox', webhook_secret: '\ud800' } })).status).toBe(400);

    expect((await readUser(db, user.id)).integration_webhook_url).toBe('https://example.com/hooks');
    expect(await tasks()).toBe(before);
  });

  it('should take well-formed text outside the Basic Multilingual Plane (a surrogate pair) as sent', async () => {
    const res = await post(h.app, '/pro/imagine', { key: user.apiKey, json: { prompt: 'a fox 🦊 𝔘𝔫𝔦 氟' } });
    expect(res.status).toBe(200);
    const { task_id } = (await res.json()) as { task_id: string };
    const { rows } = await db.query<{ prompt: string }>('select prompt from public.tasks where id = $1', [task_id]);
    expect(rows[0].prompt).toBe('a fox 🦊 𝔘𝔫𝔦 氟');

    const invoice = await post(h.app, '/auth/gen-invoice', { ...asDashboard(user), json: { invoiceId: LONE_SURROGATE } });
    expect(await expectErrorBody(invoice)).toEqual({ msg: `invoiceId: ${LONE_SURROGATE_MESSAGE}`, code: 'validation_failed' });
  });
});
