import { randomUUID } from 'node:crypto';
import { DEFAULT_JWT_SECRET, signJwt } from '@aim/supabase';
import type { Db } from '@aim/supabase/db';
import { createApiApp, type ApiConfig } from '../src/app.ts';
import { formatLogLine, type Logger } from '../src/logger.ts';

export const DASHBOARD_ORIGIN = 'http://localhost:3000';

export const testConfig: ApiConfig = {
  embedded: true,
  publicUrl: 'http://localhost:8080',
  corsOrigins: [DASHBOARD_ORIGIN],
};

export interface TestUser {
  id: string;
  email: string;
  apiKey: string;
  /** A signed-in dashboard session's access token (X-Session-Token), as the local auth issues it. */
  session: string;
}

/** A new account as first sign-in creates it: an auth.users row, whose trigger adds mdusers with a key, and a session. */
export async function createUser(db: Db): Promise<TestUser> {
  const email = `user-${randomUUID()}@example.test`;
  const { rows } = await db.query<{ id: string }>('insert into auth.users (id, email) values (gen_random_uuid(), $1) returning id', [email]);
  const id = rows[0].id;
  const key = await db.query<{ api_key: string }>('select api_key from public.mdusers where id = $1', [id]);
  return { id, email, apiKey: key.rows[0].api_key, session: await signIn(db, id, email) };
}

/** A new auth session for the user and its access token (an hour, like Supabase's default). */
export async function signIn(db: Db, userId: string, email: string): Promise<string> {
  const sessionId = randomUUID();
  await db.query('insert into auth.sessions (id, user_id, created_at, updated_at, aal) values ($1, $2, now(), now(), $3)', [sessionId, userId, 'aal1']);
  const exp = Math.floor(Date.now() / 1000) + 3600;
  return signJwt({ sub: userId, email, role: 'authenticated', aud: 'authenticated', session_id: sessionId, exp }, DEFAULT_JWT_SECRET);
}

/** Both credentials of the dashboard (the API key and the session), for `post`'s options. */
export function asDashboard(user: TestUser): { key: string; session: string } {
  return { key: user.apiKey, session: user.session };
}

export async function readUser(db: Db, id: string) {
  const { rows } = await db.query<{
    api_key: string;
    integration_webhook_url: string | null;
    onboarded: boolean;
    referral_id: string | null;
  }>('select api_key, integration_webhook_url, onboarded, referral_id from public.mdusers where id = $1', [id]);
  return rows[0];
}

/** A logger that keeps every line, to assert what is (and is not) logged. */
export function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (msg, fields) => lines.push(`info ${formatLogLine(msg, fields)}`),
    error: (msg, fields) => lines.push(`error ${formatLogLine(msg, fields)}`),
  };
}

export function testApp(db: Db, log: Logger = captureLogger()) {
  return createApiApp({ db, config: testConfig, log });
}

type App = ReturnType<typeof testApp>;

/**
 * POST with an API key (raw), optionally the dashboard session (X-Session-Token), and an
 * optional JSON body (an object is serialised, a string sent as is).
 */
export function post(app: App, path: string, opts: { key?: string; session?: string; json?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key !== undefined) headers.authorization = opts.key;
  if (opts.session !== undefined) headers['x-session-token'] = opts.session;
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers['content-type'] ??= 'application/json';
    body = typeof opts.json === 'string' ? opts.json : JSON.stringify(opts.json);
  }
  return app.request(path, { method: 'POST', headers, body });
}

/**
 * The error contract: `{ message, errors: [{ msg, code }] }` with at least one entry, nothing
 * else, and `message` (what APIFRAME v1 clients read) the first entry's msg.
 */
export async function expectErrorBody(res: Response): Promise<{ msg: string; code: string }> {
  const body = (await res.json()) as { message?: unknown; errors?: { msg: unknown; code: unknown }[] };
  if (!Array.isArray(body.errors) || body.errors.length === 0) throw new Error(`not the error contract: ${JSON.stringify(body)}`);
  for (const e of body.errors) {
    if (typeof e.msg !== 'string' || typeof e.code !== 'string' || Object.keys(e).length !== 2) {
      throw new Error(`bad error entry: ${JSON.stringify(e)}`);
    }
  }
  if (body.message !== body.errors[0].msg || Object.keys(body).sort().join() !== 'errors,message') {
    throw new Error(`the top-level message must repeat errors[0].msg, and be the only other key: ${JSON.stringify(body)}`);
  }
  return body.errors[0] as { msg: string; code: string };
}
