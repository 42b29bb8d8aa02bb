import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { FAKE_SUPABASE } from './platform.ts';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

export type FakeUser = { id: string; email: string; credits: number; plan: string; onboarded: boolean };

export const ALICE: FakeUser = {
  id: '8a4c5f5e-6d39-4b8f-9a52-3f2b1c0d9e71',
  email: 'alice.smith@example.com',
  credits: 1250,
  plan: 'zero',
  onboarded: true,
};

/**
 * A context with a signed-in user, without an auth server: the session supabase-js would have
 * stored is seeded into localStorage, and the mdusers read is answered from `user`.
 */
export async function signedInContext(
  browser: Browser,
  user: FakeUser,
  options: { colorScheme?: 'light' | 'dark'; theme?: string } = {},
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: options.colorScheme });
  const now = Math.floor(Date.now() / 1000);
  const session = {
    access_token: 'fake-access-token',
    refresh_token: 'fake-refresh-token',
    token_type: 'bearer',
    expires_in: 3600,
    expires_at: now + 3600,
    user: {
      id: user.id,
      aud: 'authenticated',
      role: 'authenticated',
      email: user.email,
      app_metadata: {},
      user_metadata: {},
      created_at: new Date().toISOString(),
    },
  };
  await context.addInitScript(
    ([key, value, theme]) => {
      if (!localStorage.getItem(key)) localStorage.setItem(key, value);
      if (theme && !localStorage.getItem('aim.theme')) localStorage.setItem('aim.theme', theme);
    },
    [`sb-${new URL(FAKE_SUPABASE).hostname.split('.')[0]}-auth-token`, JSON.stringify(session), options.theme ?? ''] as const,
  );
  // Realtime and token calls are not part of what these tests check: refuse them quietly.
  // (Playwright runs the last registered matching route first.)
  await context.route(`${FAKE_SUPABASE}/**`, (route) => route.fulfill({ status: 503, headers: { 'access-control-allow-origin': '*' }, body: '' }));
  await context.route(`${FAKE_SUPABASE}/rest/v1/mdusers**`, (route) =>
    route.fulfill({
      status: 200,
      contentType: 'application/json',
      headers: { 'access-control-allow-origin': '*' },
      body: JSON.stringify({ api_key: 'key-0123456789abcdef', customer_id: null, ...user }),
    }),
  );
  return context;
}

/** Console messages that mean a second copy of a shared library was loaded. */
export const DUPLICATE_INSTANCE_SIGNS = [
  /Invalid hook call/i,
  /Multiple GoTrueClient/i,
  /emotion.*loaded.*more than once/i,
  /useChakraContext|ChakraProvider/i,
  /does not satisfy the requirement/i,
];

export function collectConsole(page: Page): string[] {
  const lines: string[] = [];
  page.on('console', (m) => lines.push(`${m.type()}: ${m.text()}`));
  page.on('pageerror', (e) => lines.push(`pageerror: ${e.message}`));
  return lines;
}
