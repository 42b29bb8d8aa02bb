// Test users made through the platform's own public doors: the ALTCHA check, a magic-link
// email read from the dev mailbox, the user's own REST reads and the provider API.
import { randomUUID } from 'node:crypto';
import { createClient, type Session, type SupabaseClient } from '@supabase/supabase-js';
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import WebSocket from 'ws';
import type { BrowserContext } from '@playwright/test';
import { ANON_KEY, API_URL, SERVICE_ROLE_KEY, SESSION_STORAGE_KEY, SHELL_URL, SUPABASE_URL } from './platform.ts';

export type MdUserRow = { id: string; email: string; api_key: string; credits: number; plan: string; onboarded: boolean };

export type TestUser = {
  email: string;
  id: string;
  session: Session;
  row: MdUserRow;
  /** When this user last asked for a magic link (the auth service allows one per second). */
  lastMailAt: number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A fresh address per call: every journey gets its own user. */
export function uniqueEmail(tag: string): string {
  return `${tag}.${Date.now().toString(36)}${randomUUID().slice(0, 6)}@example.com`;
}

function nodeClient(key: string): SupabaseClient {
  return createClient(SUPABASE_URL, key, {
    auth: { flowType: 'implicit', persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    // Node 20 has no global WebSocket, and supabase-js wants one at construction.
    realtime: { transport: WebSocket as never },
  });
}

/** Service role: for changes only the server may make (e.g. credits). Never sent to the browser. */
export const serviceClient = () => nodeClient(SERVICE_ROLE_KEY);

/** What the ALTCHA widget would submit: base64 JSON {challenge, solution}. */
async function captchaToken(): Promise<string> {
  const res = await fetch(`${SUPABASE_URL}/auth/v1/captcha/challenge`);
  if (!res.ok) throw new Error(`GET /auth/v1/captcha/challenge → HTTP ${res.status}: ${await res.text()}`);
  const challenge = (await res.json()) as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('the captcha challenge could not be solved');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

type Mail = { id: number; to: string; subject: string; link?: string; otp?: string };

async function mails(email: string): Promise<Mail[]> {
  const res = await fetch(`${SUPABASE_URL}/_dev/mailbox.json?to=${encodeURIComponent(email)}`);
  if (!res.ok) throw new Error(`GET /_dev/mailbox.json → HTTP ${res.status}`);
  return ((await res.json()) as { messages: Mail[] }).messages;
}

/** The id of the newest mail to `email` (0 when none), to wait for a newer one afterwards. */
export async function newestMailId(email: string): Promise<number> {
  return (await mails(email))[0]?.id ?? 0;
}

/** Polls the dev mailbox briefly for a mail to `email` newer than `afterId`. */
export async function waitForMail(email: string, afterId = 0, timeoutMs = 10_000): Promise<Mail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mail = (await mails(email)).find((m) => m.id > afterId);
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail to ${email} within ${timeoutMs} ms`);
    await sleep(150);
  }
}

/** The user's mdusers row, read as the user (RLS: own row only). */
export async function readOwnRow(session: Session): Promise<MdUserRow> {
  const client = nodeClient(ANON_KEY);
  const { error: sessionError } = await client.auth.setSession(session);
  if (sessionError) throw new Error(`setSession: ${sessionError.message}`);
  const { data, error } = await client.from('mdusers').select('id, email, api_key, credits, plan, onboarded').single();
  if (error) throw new Error(`GET /rest/v1/mdusers: ${error.message}`);
  return data as MdUserRow;
}

/**
 * Signs a new user up the way the login screen does (captcha + magic link), in Node, taking
 * the one-time code from the mailbox. `onboarded` marks onboarding done through the provider
 * API with the user's API key.
 */
export async function createUser(tag: string, opts: { onboarded?: boolean } = {}): Promise<TestUser> {
  const email = uniqueEmail(tag);
  const client = nodeClient(ANON_KEY);
  const lastMailAt = Date.now();
  const { error: otpError } = await client.auth.signInWithOtp({ email, options: { captchaToken: await captchaToken(), shouldCreateUser: true } });
  if (otpError) throw new Error(`POST /auth/v1/otp for ${email}: ${otpError.message}`);
  const mail = await waitForMail(email);
  if (!mail.otp) throw new Error(`the magic-link mail to ${email} carries no code: ${JSON.stringify(mail)}`);
  const { data, error } = await client.auth.verifyOtp({ email, token: mail.otp, type: 'email' });
  if (error || !data.session) throw new Error(`POST /auth/v1/verify for ${email}: ${error?.message ?? 'no session'}`);
  let row = await readOwnRow(data.session);
  if (opts.onboarded) {
    const res = await fetch(`${API_URL}/auth/update-onboarding-status`, { method: 'POST', headers: { authorization: row.api_key } });
    if (!res.ok) throw new Error(`POST ${API_URL}/auth/update-onboarding-status → HTTP ${res.status}: ${await res.text()}`);
    row = await readOwnRow(data.session);
    if (!row.onboarded) throw new Error(`update-onboarding-status answered ${res.status} but mdusers.onboarded is still false`);
  }
  return { email, id: data.session.user.id, session: data.session, row, lastMailAt };
}

/**
 * Signs `user` in for every page of `target` (a browser context or one page) by storing the
 * session exactly where the dashboard's supabase-js keeps it. The session itself is real,
 * issued by the auth service in createUser.
 */
export async function signIn(target: Pick<BrowserContext, 'addInitScript'>, user: TestUser): Promise<void> {
  await target.addInitScript(
    ([origin, key, value]) => {
      // Only on the dashboard and before the app's first start in this tab: after that the app
      // owns the key (refresh, sign-out).
      if (location.origin !== origin || sessionStorage.getItem('e2e.seeded')) return;
      sessionStorage.setItem('e2e.seeded', '1');
      localStorage.setItem(key, value);
    },
    [SHELL_URL, SESSION_STORAGE_KEY, JSON.stringify(user.session)] as const,
  );
}

/** Adds (or with a negative delta removes) credits as the server does: service role only. */
export async function applyCredit(userId: string, delta: number, reason: string): Promise<number> {
  const { data, error } = await serviceClient().rpc('apply_credit', {
    p_user_id: userId,
    p_delta: delta,
    p_source_key: `e2e:${randomUUID()}`,
    p_reason: reason,
  });
  if (error) throw new Error(`POST /rest/v1/rpc/apply_credit: ${error.message} (${error.code})`);
  return data as number;
}
