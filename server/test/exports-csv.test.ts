import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { csvCell } from '../src/services/exports/csv.ts';
import { EXPORT_PAGE_ROWS } from '../src/services/exports/export-csv.ts';
import { asDashboard, captureLogger, createUser, expectErrorBody, post, testApp, type TestUser } from './helpers.ts';
import { openTestDb } from './support/tasks.ts';

/** A minimal RFC 4180 reader (quoted cells, doubled quotes, CRLF), to read the exports back. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
      i++;
    } else cell += ch;
  }
  if (cell || row.length) rows.push([...row, cell]);
  return rows;
}

describe('csv cells', () => {
  it.each([
    [null, ''],
    [-4, '-4'],
    [12, '12'],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=HYPERLINK("http://x")', `"'=HYPERLINK(""http://x"")"`],
    ['+1', "'+1"],
    ['-2', "'-2"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', "'\tcmd"],
    [' padded', '" padded"'],
  ])('writes %j as %s', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });
});

describe.each(testDatabaseKinds())('CSV exports on %s', (kind) => {
  let db: Db;
  let pageQueries = 0;
  let app: ReturnType<typeof testApp>;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    db = await openTestDb(kind);
    // counts the export's page queries, to see how much of a download the server reads at once
    const counting = new Proxy(db, {
      get(target, prop) {
        if (prop === 'query') {
          return (sql: string, params?: unknown[]) => {
            if (/from public\.(tasks|credit_history) r\s/.test(sql) && /order by r\.created_at desc, r\.id desc/.test(sql)) pageQueries++;
            return target.query(sql, params);
          };
        }
        const value = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    app = testApp(counting, captureLogger());
    alice = await createUser(db);
    bob = await createUser(db);
  });
  afterAll(async () => {
    await db?.close();
  });

  async function link(user: TestUser, body: unknown): Promise<string> {
    const res = await post(app, '/exports', { ...asDashboard(user), json: body });
    expect(res.status).toBe(200);
    const { url, expires_at } = (await res.json()) as { url: string; expires_at: string };
    expect(Date.parse(expires_at)).toBeGreaterThan(Date.now());
    return new URL(url).pathname + new URL(url).search;
  }

  async function download(path: string): Promise<string[][]> {
    const res = await app.request(path);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="(task-logs|credit-history)-\d{4}-\d{2}-\d{2}\.csv"$/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    // a UTF-8 byte order mark first (TextDecoder drops it)
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    return parseCsv(new TextDecoder().decode(bytes));
  }

  it('exports Task Logs with the current filters, cells escaped and formula-safe, newest first', async () => {
    const user = await createUser(db);
    const prompts = ['=HYPERLINK("http://evil")', '+1', '-2', '@SUM(A1)', 'a, "quoted"\nprompt', 'plain'];
    for (const [i, prompt] of prompts.entries()) {
      await db.query(
        `insert into public.tasks (user_id, email, type, status, prompt, cost, refund, result, created_at)
         values ($1, $2, $3, $4, $5, 4, $6, $7, now() - make_interval(mins => $8))`,
        [
          user.id,
          user.email,
          i % 2 ? 'imagine' : 'outpaint-zoom',
          i === 0 ? 'failed' : 'finished',
          prompt,
          i === 0 ? 4 : 0,
          { message: i === 0 ? '-bad' : 'ok' },
          i,
        ],
      );
    }
    const all = await download(await link(user, { kind: 'task-logs' }));
    expect(all[0]).toEqual(['task_id', 'type', 'status', 'percentage', 'created_at', 'cost', 'refund', 'prompt', 'message']);
    expect(all.slice(1).map((r) => r[7])).toEqual(['\'=HYPERLINK("http://evil")', "'+1", "'-2", "'@SUM(A1)", 'a, "quoted"\nprompt', 'plain']);
    expect(all[1]).toMatchObject({ 2: 'failed', 5: '4', 6: '4', 8: "'-bad" });
    expect(all[1][4]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

    const failed = await download(await link(user, { kind: 'task-logs', filters: { statuses: ['failed'] } }));
    expect(failed.slice(1).map((r) => r[7])).toEqual(['\'=HYPERLINK("http://evil")']);
    // the type filter as Task Logs resolves a family: exact types plus prefixes (outpaint-*)
    const outpaints = await download(await link(user, { kind: 'task-logs', filters: { types: ['variation-1'], prefixes: ['outpaint-'] } }));
    expect(outpaints.slice(1).map((r) => r[1])).toEqual(['outpaint-zoom', 'outpaint-zoom', 'outpaint-zoom']);
    // a prefix is literal: "_" or "%" match only themselves
    expect(await download(await link(user, { kind: 'task-logs', filters: { prefixes: ['outpaint_'] } }))).toHaveLength(1);
    const one = all[3][0];
    expect((await download(await link(user, { kind: 'task-logs', filters: { task_id: one } }))).slice(1).map((r) => r[0])).toEqual([one]);
  });

  it('exports the credit history with each movement’s kind, balance after, task and invoice', async () => {
    const user = await createUser(db);
    const taskId = '5b0e4a43-7f0a-4d1c-9a57-0d2f5c1e8a11';
    await db.query(`select public.apply_credit($1, 1000, 'in:in_1', 'plan:basic')`, [user.id]);
    await db.query(
      `insert into public.payments (user_id, email, plan_name, amount, kind, credits, provider_ref) values ($1, $2, 'basic', 39, 'subscription', 1000, 'in:in_1')`,
      [user.id, user.email],
    );
    await db.query(`select public.apply_credit($1, -4, $2, 'hold imagine', $3::uuid)`, [user.id, `hold:${taskId}`, taskId]);
    await db.query(`select public.apply_credit($1, 4, $2, 'refund imagine', $3::uuid)`, [user.id, `refund:${taskId}`, taskId]);
    await db.query(`select public.apply_credit($1, 250, 'pi:pi_1', 'auto_topup')`, [user.id]);
    const rows = await download(await link(user, { kind: 'credit-history' }));
    expect(rows[0]).toEqual(['id', 'created_at', 'kind', 'delta', 'balance_after', 'task_id', 'task_type', 'invoice_number']);
    expect(rows.slice(1).map((r) => r.slice(2))).toEqual([
      ['auto_topup', '250', '1250', '', '', ''],
      ['refund', '4', '1000', taskId, 'imagine', ''],
      ['hold', '-4', '996', taskId, 'imagine', ''],
      ['plan', '1000', '1000', '', '', expect.stringMatching(/^INV-\d+$/)],
    ]);
  });

  // 100,000 rows on PostgreSQL; PGlite (in-process, ~0.5 ms an inserted task) gets the same check on 5.5 pages
  const total = kind === 'postgres' ? 100_000 : EXPORT_PAGE_ROWS * 5 + 500;
  it(`streams ${total} rows page by page: every row once, in order, one bounded page per query`, async () => {
    const user = await createUser(db);
    // three tasks per microsecond-precise timestamp: the (created_at, id) cursor must keep ties
    await db.query(
      `insert into public.tasks (user_id, email, type, status, prompt, created_at)
       select $1, $2, 'imagine', 'finished', 'prompt ' || i, timestamptz '2026-11-01 00:00:00Z' + (i / 3) * interval '1.000007 second'
         from generate_series(1, $3::int) as i`,
      [user.id, user.email, total],
    );
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await new Promise<void>((resolve) => (server.listening ? resolve() : server.once('listening', () => resolve())));
    try {
      const { port } = server.address() as AddressInfo;
      const path = await link(user, { kind: 'task-logs' });
      const before = pageQueries;
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      expect(res.status).toBe(200);
      // streamed: no length known up front, chunked transfer
      expect(res.headers.get('transfer-encoding')).toBe('chunked');
      expect(res.headers.get('content-length')).toBeNull();
      const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
      let rest = '';
      let lines = 0;
      let previous = '';
      let ordered = true;
      const ids = new Set<string>();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const parts = (rest + value).split('\r\n');
        rest = parts.pop()!;
        for (const line of parts) {
          lines++;
          if (lines === 1) continue; // header
          const [id, , , , createdAt] = line.split(',');
          ids.add(id);
          if (previous && createdAt > previous) ordered = false;
          previous = createdAt;
        }
      }
      expect(rest).toBe('');
      expect(lines).toBe(total + 1);
      expect(ids.size).toBe(total);
      expect(ordered).toBe(true);
      // one query per page of EXPORT_PAGE_ROWS and a last, empty one: the server never held more than a page
      expect(pageQueries - before).toBe(Math.floor(total / EXPORT_PAGE_ROWS) + 1);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  }, 120_000);

  it('reads the next page only when the client has taken the one before', async () => {
    const user = await createUser(db);
    await db.query(
      `insert into public.tasks (user_id, email, type, status, created_at)
       select $1, $2, 'imagine', 'finished', now() - i * interval '1 second' from generate_series(1, $3::int) as i`,
      [user.id, user.email, EXPORT_PAGE_ROWS * 5],
    );
    const res = await app.request(await link(user, { kind: 'task-logs' }));
    const reader = res.body!.getReader();
    const before = pageQueries;
    await reader.read(); // the header
    await reader.read(); // page 1
    await new Promise((r) => setTimeout(r, 50)); // room for any read-ahead to happen
    expect(pageQueries - before).toBe(1);
    await reader.read(); // page 2
    expect(pageQueries - before).toBe(2);
    await reader.cancel();
  });

  it('refuses a link that is unknown, used, expired or of the other kind, and asks for the API key to make one', async () => {
    const path = await link(alice, { kind: 'task-logs' });
    const results = await Promise.all([app.request(path), app.request(path)]);
    // two racing downloads of one link: exactly one gets the file
    expect(results.map((r) => r.status).sort()).toEqual([200, 403]);
    await results.find((r) => r.status === 200)!.text();
    expect(await expectErrorBody(results.find((r) => r.status === 403)!)).toMatchObject({ code: 'forbidden' });

    const expired = await link(alice, { kind: 'credit-history' });
    await db.query(`update public.export_tokens set expires_at = now() - interval '1 second' where user_id = $1`, [alice.id]);
    expect((await app.request(expired)).status).toBe(403);

    const other = await link(alice, { kind: 'credit-history' });
    expect((await app.request(other.replace('credit-history.csv', 'task-logs.csv'))).status).toBe(403);
    expect((await app.request('/exports/task-logs.csv?token=made-up')).status).toBe(403);
    expect((await app.request('/exports/task-logs.csv')).status).toBe(403);

    expect((await post(app, '/exports', { json: { kind: 'task-logs' } })).status).toBe(401);
    expect((await post(app, '/exports', { ...asDashboard(alice), json: { kind: 'invoices' } })).status).toBe(400);
    expect((await post(app, '/exports', { ...asDashboard(alice), json: { kind: 'task-logs', filters: { task_id: 'nope' } } })).status).toBe(400);
    // only the hash is stored
    const { rows } = await db.query<{ token_hash: string }>('select token_hash from public.export_tokens');
    expect(rows.every((r) => /^[0-9a-f]{64}$/.test(r.token_hash))).toBe(true);
  });

  it('exports only the caller’s own rows, whatever the filters name', async () => {
    const { rows } = await db.query<{ id: string }>(
      `insert into public.tasks (user_id, email, type, prompt) values ($1, $2, 'imagine', 'alice secret') returning id`,
      [alice.id, alice.email],
    );
    await db.query(`select public.apply_credit($1, 77, $2, 'test')`, [alice.id, `secret:${alice.id}`]);
    expect((await download(await link(alice, { kind: 'task-logs', filters: { task_id: rows[0].id } }))).slice(1).map((r) => r[0])).toEqual([rows[0].id]);

    const theirTask = await download(await link(bob, { kind: 'task-logs', filters: { task_id: rows[0].id } }));
    expect(theirTask).toHaveLength(1);
    const everything = await download(await link(bob, { kind: 'task-logs' }));
    expect(everything.flat().join()).not.toContain('alice secret');
    expect(await download(await link(bob, { kind: 'credit-history' }))).toHaveLength(1);
  });
});
