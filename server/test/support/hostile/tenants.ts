/**
 * Tenants made through the platform's public doors only (the suite has no database handle on
 * the embedded PGlite): the ALTCHA check, a magic link read from the console line every layout
 * prints, the session from the link's redirect, the API key from the user's own row over REST;
 * credits granted with the service-role key, as the server does.
 */
import { randomUUID } from 'node:crypto';
import { type Challenge, solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { json, request } from './http.ts';
import type { Platform } from './platform.ts';

export interface Tenant {
  email: string;
  id: string;
  apiKey: string;
  /** The access token of a real session from the local auth. */
  session: string;
  refreshToken: string;
  /** This tenant's client address (a loopback address of its own). */
  from: string;
}

async function captchaToken(p: Platform, from: string): Promise<string> {
  const challenge = json<Challenge>(await request(`${p.supabaseUrl}/auth/v1/captcha/challenge`, { from }));
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('captcha not solved');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

const authHeaders = (p: Platform) => ({ apikey: p.anonKey, 'content-type': 'application/json', 'x-supabase-api-version': '2024-01-01' });

/** POST /auth/v1/otp as the login screen sends it; resolves once the mail's console line is there. */
export async function mailMagicLink(p: Platform, email: string, from: string): Promise<string> {
  const before = (
    p.processes
      .map((x) => x.out)
      .join('\n')
      .match(new RegExp(`\\[mailbox\\] to=${email.replace(/[.+]/g, '\\$&')} `, 'g')) ?? []
  ).length;
  const res = await request(`${p.supabaseUrl}/auth/v1/otp`, {
    method: 'POST',
    from,
    headers: authHeaders(p),
    body: JSON.stringify({ email, create_user: true, gotrue_meta_security: { captcha_token: await captchaToken(p, from) } }),
  });
  if (res.status !== 200) throw new Error(`POST /auth/v1/otp ${email}: ${res.status} ${res.text}`);
  return p.magicLink(email, before);
}

/** Opens a magic link as a browser does; the access token when it signs in, else the error code. */
export async function openLink(link: string, from: string): Promise<{ accessToken?: string; refreshToken?: string; error?: string; status: number }> {
  const u = new URL(link);
  const res = await request(`http://127.0.0.1:${u.port}${u.pathname}${u.search}`, { from });
  const location = String(res.headers.location ?? '');
  const fragment = new URLSearchParams(location.split('#')[1] ?? '');
  const query = new URL(location || 'http://x').searchParams;
  return {
    status: res.status,
    accessToken: fragment.get('access_token') ?? undefined,
    refreshToken: fragment.get('refresh_token') ?? undefined,
    error: fragment.get('error_code') ?? query.get('error_code') ?? undefined,
  };
}

/** A new account signed in through a magic link, with `credits` granted and its own client address. */
export async function createTenant(p: Platform, tag: string, from: string, credits: number): Promise<Tenant> {
  const email = `${tag}-${randomUUID().slice(0, 8)}@example.com`;
  const link = await mailMagicLink(p, email, from);
  const signedIn = await openLink(link, from);
  if (!signedIn.accessToken) throw new Error(`the magic link of ${email} did not sign in: ${JSON.stringify(signedIn)}`);
  const row = await request(`${p.supabaseUrl}/rest/v1/mdusers?select=id,api_key`, {
    from,
    headers: { apikey: p.anonKey, authorization: `Bearer ${signedIn.accessToken}` },
  });
  const [own] = json<{ id: string; api_key: string }[]>(row);
  if (!own) throw new Error(`no mdusers row for ${email}: ${row.status} ${row.text}`);
  if (credits > 0) await grantCredits(p, own.id, credits);
  return { email, id: own.id, apiKey: own.api_key, session: signedIn.accessToken, refreshToken: signedIn.refreshToken ?? '', from };
}

const serviceHeaders = (p: Platform) => ({ apikey: p.serviceRoleKey, authorization: `Bearer ${p.serviceRoleKey}`, 'content-type': 'application/json' });

async function grantCredits(p: Platform, userId: string, credits: number): Promise<void> {
  const res = await request(`${p.supabaseUrl}/rest/v1/rpc/apply_credit`, {
    method: 'POST',
    headers: serviceHeaders(p),
    body: JSON.stringify({ p_user_id: userId, p_delta: credits, p_source_key: `hostile:${randomUUID()}`, p_reason: 'hostile suite grant' }),
  });
  if (res.status !== 200) throw new Error(`apply_credit: ${res.status} ${res.text}`);
}

/** Reads rows with the service-role key (every tenant's, past RLS), as the server may. */
export async function serviceRead<T>(p: Platform, pathAndQuery: string): Promise<T[]> {
  const res = await request(`${p.supabaseUrl}/rest/v1/${pathAndQuery}`, { headers: serviceHeaders(p) });
  if (res.status !== 200) throw new Error(`GET /rest/v1/${pathAndQuery}: ${res.status} ${res.text}`);
  return json<T[]>(res);
}

/** A call of the provider API as the tenant (its key; `session` adds the dashboard's session token). */
export function callApi(p: Platform, t: Tenant, method: string, pathname: string, body?: unknown, opts: { session?: boolean } = {}) {
  return request(`${p.apiUrl}${pathname}`, {
    method,
    from: t.from,
    headers: {
      authorization: t.apiKey,
      ...(opts.session ? { 'x-session-token': t.session } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}
