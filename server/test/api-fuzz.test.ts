/**
 * Property-based fuzz of every operation in /openapi.json (support/openapi-fuzz.ts makes the
 * requests: schema values mixed with NUL, lone surrogates, 1 MB strings, deep nesting, wrong
 * types and content types, garbage credentials), with a real API key and without one. No
 * answer may be a 5xx, and every 4xx carries the error contract. The seed is fixed; a failure
 * names it, and `FUZZ_SEED=<seed> npx vitest run test/api-fuzz.test.ts` replays the run;
 * A lone surrogate in any string field of an otherwise fitting JSON body must be a 400 and
 * leave nothing in the database (it used to be a 500, or stored as U+FFFD).
 * FUZZ_RUNS_SCALE=10 runs ten times as many requests (a longer hunt, not for CI).
 */
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '@aim/supabase/db';
import { testDatabaseKinds } from '@aim/supabase/testing';
import { createUser, post } from './helpers.ts';
import {
  authorizationOf,
  describeRequest,
  learnFrom,
  operationsOf,
  requestsFor,
  surrogateRequestsFor,
  type FuzzRequest,
  type FuzzState,
  type OpenApiDocument,
  type Operation,
} from './support/openapi-fuzz.ts';
import { createLocalEngine } from '../src/engines/local/index.ts';
import { LONE_SURROGATE_MESSAGE } from '../src/openapi/nul-guard.ts';
import { grantCredits, openTestDb, scriptedEngine, TEST_CELL_SIZE, taskHarness, waitForTask, type TaskHarness } from './support/tasks.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20_260_511);
// runs per operation: a few seconds per database leg on a 2-core machine
const RUNS = { authenticated: 24, anonymous: 6, surrogates: 8 } as const;
const SCALE = Number(process.env.FUZZ_RUNS_SCALE ?? 1);

/** The error contract: `{ message, errors: [{ msg, code }] }`, msg a non-empty string, message the first msg. */
function contractViolation(contentType: string | null, text: string): string | undefined {
  if (!contentType?.startsWith('application/json')) return `content-type ${contentType}`;
  let body: { message?: unknown; errors?: { msg?: unknown; code?: unknown }[] };
  try {
    body = JSON.parse(text);
  } catch {
    return 'a body that is not JSON';
  }
  if (!Array.isArray(body.errors) || body.errors.length === 0) return 'no errors array';
  const bad = body.errors.find((e) => typeof e.msg !== 'string' || e.msg.trim() === '' || typeof e.code !== 'string');
  if (bad) return `a bad entry ${JSON.stringify(bad)}`;
  return body.message === body.errors[0].msg ? undefined : `a top-level message ${JSON.stringify(body.message)} that is not errors[0].msg`;
}

/**
 * How many rows of each text or JSON column of the app's tables hold U+FFFD, the character a
 * lone surrogate turns into on its way to the database (the driver encodes UTF-8).
 */
async function replacementCharacters(db: Db): Promise<Record<string, number>> {
  const { rows: columns } = await db.query<{ schema: string; table: string; column: string }>(
    `select c.table_schema as schema, c.table_name as table, c.column_name as column
       from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      where c.table_schema in ('public', 'auth') and c.data_type in ('text', 'character varying', 'json', 'jsonb', 'ARRAY')
      order by 1, 2, 3`,
  );
  const counts: Record<string, number> = {};
  for (const { schema, table, column } of columns) {
    const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from "${schema}"."${table}" where strpos("${column}"::text, chr(65533)) > 0`);
    if (rows[0].n > 0) counts[`${schema}.${table}.${column}`] = rows[0].n;
  }
  return counts;
}

/** An operation's own seed offset, from its method and path: a new route leaves the others' runs as they were. */
function seedOffset(op: { method: string; path: string }): number {
  let hash = 0;
  for (const ch of `${op.method} ${op.path}`) hash = (hash * 31 + ch.charCodeAt(0)) % 9_973;
  return hash;
}

async function firstChunk(res: Response): Promise<string> {
  const reader = res.body?.getReader();
  const chunk = await reader?.read();
  await reader?.cancel();
  return new TextDecoder().decode(chunk?.value);
}

describe.each(testDatabaseKinds())('fuzzing every operation of /openapi.json on %s', (kind) => {
  let db: Db;
  let h: TaskHarness;
  let state: FuzzState;
  let doc: OpenApiDocument;
  let operations: Operation[];

  beforeAll(async () => {
    db = await openTestDb(kind);
    // the AI photo kinds on a scripted engine, so their submits reach the task (the local face engine is not needed here)
    h = await taskHarness(db, [
      createLocalEngine({ cellSize: TEST_CELL_SIZE }),
      scriptedEngine('ai-photos', ['ai-photo-upload', 'ai-photo-train', 'ai-photo-generate']),
    ]);
    const user = await createUser(db);
    await grantCredits(db, user.id, 1_000_000);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: 10, g: 200, b: 90 } } })
      .png()
      .toBuffer();
    // 32 distinct photos: more than the 30 an AI photo upload takes
    const photos = await Promise.all(
      Array.from({ length: 32 }, async (_, i) =>
        (
          await sharp({ create: { width: 8, height: 8, channels: 3, background: { r: i * 7, g: 255 - i * 5, b: 90 } } })
            .png()
            .toBuffer()
        ).toString('base64'),
      ),
    );
    state = { apiKey: user.apiKey, learned: new Map(), png, photos, session: user.session };
    doc = (await (await h.app.request('/openapi.json')).json()) as OpenApiDocument;
    operations = operationsOf(doc);

    // one finished task, so variations, upscales, rerolls and seeds can get past "not found"
    const worker = h.worker();
    await worker.start();
    const finished = async (path: string, json: unknown) => {
      const res = await post(h.app, path, { key: user.apiKey, json });
      const { task_id } = (await res.json()) as { task_id: string };
      await waitForTask(db, task_id);
      learnFrom(state, { task_id });
      return task_id;
    };
    await finished('/pro/imagine', { prompt: 'a lighthouse on a cliff' });
    // and an AI photo upload and its training, so train and generate can get past "not found"
    const upload = await finished('/ai-photo-upload', { images: photos.slice(0, 10), ethnicity: 'other', gender: 'male', age: 30 });
    await finished('/ai-photo-train', { training_images_id: upload, trigger_word: 'FUZZER' });
    await worker.stop();
  });
  afterAll(async () => {
    // a 5xx the fuzz did not see (e.g. logged and answered late) still fails the suite
    expect(h?.appLog.lines.filter((l) => l.includes('unhandled error')) ?? []).toEqual([]);
    await h?.cleanup();
    await db?.close();
  });

  /** Sends one request; throws unless the answer is below 500 and a 4xx has the error contract. Answers the status and body. */
  async function send(req: FuzzRequest): Promise<{ status: number; text: string }> {
    const headers = new Headers();
    const authorization = authorizationOf(req, state.apiKey);
    if (authorization !== undefined) headers.set('authorization', authorization);
    if (req.contentType !== undefined) headers.set('content-type', req.contentType);
    for (const [name, value] of Object.entries(req.headers ?? {})) headers.set(name, value);
    const res = await h.app.request(req.url, { method: req.method, headers, body: req.body });
    // a live event stream (GET /events, /tasks/{task_id}/events) does not end: its first chunk, then hang up
    const text = res.headers.get('content-type')?.startsWith('text/event-stream') ? await firstChunk(res) : await res.text();
    if (res.status >= 500) throw new Error(`${res.status} for ${describeRequest(req, state.apiKey)}: ${text.slice(0, 300)}`);
    if (res.status >= 400 && req.method !== 'HEAD') {
      const violation = contractViolation(res.headers.get('content-type'), text);
      if (violation)
        throw new Error(`${res.status} without the error contract (${violation}) for ${describeRequest(req, state.apiKey)}: ${text.slice(0, 300)}`);
    }
    if (res.ok && req.method !== 'HEAD' && res.headers.get('content-type')?.startsWith('application/json')) {
      const body = JSON.parse(text) as { api_key?: unknown };
      // the key rotation call replaces the key: keep fuzzing with the new one
      if (typeof body.api_key === 'string') state.apiKey = body.api_key;
      learnFrom(state, body);
    }
    return { status: res.status, text };
  }

  it('should read the operations out of the document (bodies, path parameters, security)', () => {
    expect(operations.map((op) => `${op.method} ${op.path}`)).toEqual(
      expect.arrayContaining([
        'POST /upload',
        'GET /media/{key}',
        'GET /health',
        'POST /pro/imagine',
        'POST /auth/updateWebhookURL',
        'POST /ai-photo-upload',
        'POST /ai-photo-train',
        'POST /ai-photo-generate',
      ]),
    );
    expect(operations.find((op) => op.path === '/upload')).toMatchObject({ authed: true, multipart: true });
    expect(operations.find((op) => op.path === '/media/{key}')?.pathParams.map((p) => p.name)).toEqual(['key']);
  });

  it.each(['authenticated', 'anonymous'] as const)(
    'should answer %s hostile requests to every operation without a 5xx, with the error contract',
    async (mode) => {
      // per operation, the answers that only its service gives: validation passed, the handler ran
      const reached = new Map<string, string[]>();
      for (const op of operations) {
        const seed = SEED + seedOffset(op);
        const seen: string[] = [];
        reached.set(`${op.method} ${op.path}`, seen);
        try {
          await fc.assert(
            fc.asyncProperty(requestsFor(doc, state, op, mode === 'authenticated'), async (req) => {
              const { status, text } = await send(req);
              if (status === 200 || status === 402 || status === 409 || text.includes('"Task not found"')) seen.push(`${status}`);
            }),
            // the AI photo calls need every part of a request right at once (real photos, the JSON
            // type, the key) to get past validation: more runs, so their seeds reach the service
            { seed, numRuns: Math.ceil(RUNS[mode] * SCALE * (op.path.startsWith('/ai-photo') ? 3 : 1)) },
          );
        } catch (e) {
          throw new Error(
            `fuzz of ${op.method} ${op.path} (${mode}) failed: replay with FUZZ_SEED=${SEED} (seed of this operation ${seed})\n${(e as Error).message}\n${String((e as Error).cause ?? '')}`,
          );
        }
      }
      // the photos and ids the fuzz is given get requests through validation into the services:
      // an upload all the way to a task; a training or a generation at least to the service's
      // own 404 or 409 (most ids it learns are of uploads it made itself, still pending)
      if (mode === 'authenticated') {
        expect(reached.get('POST /ai-photo-upload')).toContain('200');
        for (const path of ['/ai-photo-train', '/ai-photo-generate']) expect(reached.get(`POST ${path}`), path).not.toEqual([]);
        // the picture actions: uploaded pictures and learned task ids take them past validation
        for (const path of ['/describe', '/blend', '/inpaint', '/pan', '/ideogram-remix', '/flux-imagine'])
          expect(reached.get(`POST ${path}`), path).not.toEqual([]);
      }
    },
  );

  it('should answer a lone surrogate in any string field of a JSON body with a 400 naming it, and store none of it', async () => {
    const before = await replacementCharacters(db);
    let sent = 0;
    const named: string[] = [];
    for (const op of operations) {
      const requests = surrogateRequestsFor(doc, state, op);
      if (!requests) continue;
      const seed = SEED + 10_000 + seedOffset(op);
      try {
        await fc.assert(
          fc.asyncProperty(requests, async (r) => {
            if (!r) return;
            sent++;
            const { status, text } = await send(r.req);
            const where = `a lone surrogate in ${r.field} of ${describeRequest(r.req, state.apiKey)}: ${text.slice(0, 300)}`;
            if (status !== 400) throw new Error(`${status} for ${where}`);
            const { errors } = JSON.parse(text) as { errors: { msg: string; code: string }[] };
            if (errors[0].code !== 'validation_failed') throw new Error(`${errors[0].code} for ${where}`);
            // another field's (or this one's) schema may refuse the value first; otherwise the surrogate is named
            if (errors.some((e) => e.msg === `${r.field}: ${LONE_SURROGATE_MESSAGE}`)) named.push(`${op.method} ${op.path}`);
          }),
          { seed, numRuns: Math.ceil(RUNS.surrogates * SCALE) },
        );
      } catch (e) {
        throw new Error(
          `lone surrogate fuzz of ${op.method} ${op.path} failed: replay with FUZZ_SEED=${SEED} (seed of this operation ${seed})\n${(e as Error).message}\n${String((e as Error).cause ?? '')}`,
        );
      }
    }
    // ids, enums and patterned fields refuse a surrogate by their own schema; the free text names it
    expect(named.length).toBeGreaterThan(sent / 3);
    for (const path of ['/pro/imagine', '/suno-imagine', '/auth/updateWebhookURL']) expect(named, path).toContain(`POST ${path}`);
    expect(await replacementCharacters(db)).toEqual(before);
  });
});
