import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { defaultLocalConfig, type LocalSupabaseConfig } from '../src/index.ts';

/** Captcha on, with little work per challenge so suites stay fast. */
export function fastCaptcha(over: Partial<LocalSupabaseConfig['captcha']> = {}): LocalSupabaseConfig['captcha'] {
  return { ...defaultLocalConfig({ publicUrl: 'http://127.0.0.1' }).captcha, maxNumber: 2_000, ...over };
}

export async function fetchChallenge(url: string): Promise<Challenge> {
  const res = await fetch(`${url}/auth/v1/captcha/challenge`);
  if (res.status !== 200) throw new Error(`challenge: HTTP ${res.status}`);
  return (await res.json()) as Challenge;
}

/** What the ALTCHA widget submits: base64 JSON {challenge, solution}. */
export async function solve(challenge: Challenge): Promise<string> {
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('captcha not solved');
  return Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
}

export async function captchaToken(url: string): Promise<string> {
  return solve(await fetchChallenge(url));
}

/** Follows nothing: the status and Location of one hop. */
export async function hop(url: string, init: RequestInit = {}): Promise<{ status: number; location: string }> {
  const res = await fetch(url, { ...init, redirect: 'manual' });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') ?? '' };
}

export function decodeJwt(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString('utf8')) as Record<string, unknown>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let counter = 0;
/** A fresh address per test (each test creates its own user). */
export const uniqueEmail = (tag: string) => `${tag}-${Date.now().toString(36)}-${++counter}@example.com`;
