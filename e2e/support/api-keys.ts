// Helpers for the API Keys journey: the account as the server holds it, the clipboard, and the
// copied curl sample turned back into the request it makes.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';
import { API_URL } from './platform.ts';
import { serviceClient } from './users.ts';

/** The user's key and webhook URL as stored in mdusers (service role). */
export async function readAccount(userId: string): Promise<{ api_key: string; integration_webhook_url: string | null }> {
  const { data, error } = await serviceClient().from('mdusers').select('api_key, integration_webhook_url').eq('id', userId).single();
  if (error) throw new Error(`GET /rest/v1/mdusers?id=eq.${userId}: ${error.message}`);
  return data as { api_key: string; integration_webhook_url: string | null };
}

/** spec §9: first 4 and last 4 characters visible (the page's mask character is '•'). */
export function masked(key: string): string {
  return `${key.slice(0, 4)}${'•'.repeat(key.length - 8)}${key.slice(-4)}`;
}

export function readClipboard(page: Page): Promise<string> {
  return page.evaluate(() => navigator.clipboard.readText());
}

/** An authenticated call any key holder can make; answers the HTTP status. */
export async function onboardingStatusWith(apiKey: string): Promise<number> {
  const res = await fetch(`${API_URL}/auth/update-onboarding-status`, { method: 'POST', headers: { authorization: apiKey } });
  return res.status;
}

export type CurlRequest = { method: string; url: string; headers: Record<string, string>; body: string | undefined };

/**
 * What a curl command line asks for. bash itself splits the copied text into arguments (quotes,
 * line continuations), with `curl` replaced by a function that prints them NUL-separated.
 */
export async function parseCurl(command: string): Promise<CurlRequest> {
  const { stdout } = await promisify(execFile)('bash', ['-c', `curl() { printf '%s\\0' "$@"; }\n${command}`]);
  const args = stdout.split('\0').slice(0, -1);
  const request: CurlRequest = { method: 'GET', url: '', headers: {}, body: undefined };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-X' || arg === '--request') request.method = args[++i]!;
    else if (arg === '-H' || arg === '--header') {
      const header = args[++i]!;
      const colon = header.indexOf(':');
      request.headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    } else if (arg === '-d' || arg === '--data' || arg === '--data-raw') {
      request.body = args[++i]!;
      if (request.method === 'GET') request.method = 'POST';
    } else if (arg.startsWith('-')) throw new Error(`parseCurl: option ${arg} is not understood`);
    else request.url = arg;
  }
  return request;
}
