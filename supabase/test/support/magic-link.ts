import type { SupabaseClient } from '@supabase/supabase-js';
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';

/**
 * Signs a supabase-js client (flowType 'pkce') in the way a person does it, over HTTP only:
 * solve the ALTCHA challenge, request the magic link, read it from the dev mailbox's JSON
 * endpoint, open it, exchange the code. Works against tests' servers and a running platform.
 */
export async function signInWithMagicLink(client: SupabaseClient, supabaseUrl: string, email: string, redirectTo = 'http://localhost:3000/auth/callback') {
  const challenge = (await (await fetch(`${supabaseUrl}/auth/v1/captcha/challenge`)).json()) as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  if (!solution) throw new Error('captcha not solved');
  const captchaToken = Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
  const since = Date.now();
  const { error } = await client.auth.signInWithOtp({ email, options: { emailRedirectTo: redirectTo, captchaToken } });
  if (error) throw error;
  let link: string | undefined;
  for (let i = 0; i < 50 && !link; i++) {
    const { messages } = (await (await fetch(`${supabaseUrl}/_dev/mailbox.json?to=${encodeURIComponent(email)}`)).json()) as {
      messages: { link?: string; createdAt: string }[];
    };
    link = messages.find((m) => m.link && Date.parse(m.createdAt) >= since - 1000)?.link;
    if (!link) await new Promise((r) => setTimeout(r, 100));
  }
  if (!link) throw new Error(`no magic link for ${email} in the mailbox`);
  const res = await fetch(link, { redirect: 'manual' });
  const location = res.headers.get('location') ?? '';
  const code = new URL(location).searchParams.get('code');
  if (res.status !== 303 || !code) throw new Error(`magic link answered ${res.status} ${location}`);
  const { data, error: exchangeError } = await client.auth.exchangeCodeForSession(code);
  if (exchangeError) throw exchangeError;
  return data.session;
}
