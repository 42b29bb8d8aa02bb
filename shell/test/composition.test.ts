import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, DUPLICATE_INSTANCE_SIGNS, collectConsole, launchChromium, signedInContext } from './support/browser.ts';
import { startPlatform, type Platform } from './support/platform.ts';

const artifacts = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../test-results');
mkdirSync(artifacts, { recursive: true });

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('the composed platform (built shell + five remotes on their own origins)', () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform();
  });
  afterAll(async () => {
    await platform?.close();
  });

  it('runs one instance of react, react-dom, router, Chakra, emotion, jotai and shared-kit across shell and remotes', async () => {
    const context = await signedInContext(browser, ALICE);
    const page = await context.newPage();
    const log = collectConsole(page);
    const screens: [string, string, string][] = [
      ['/dashboard/tools/midjourney', 'screen-midjourney', 'mfe_tools'],
      ['/dashboard/assets/images', 'screen-images', 'mfe_assets'],
      ['/dashboard/billing/invoices', 'screen-invoices', 'mfe_billing'],
      ['/dashboard/api-keys', 'screen-api-keys', 'mfe_developer'],
    ];
    await page.goto(platform.shellUrl + screens[0]![0]);
    for (const [to, testId] of screens) {
      // Client-side navigation, as a user clicking the sidebar would.
      await page.evaluate((p) => {
        history.pushState(null, '', p);
        dispatchEvent(new PopStateEvent('popstate'));
      }, to);
      await page.getByTestId(testId).waitFor({ timeout: 15_000 });
    }
    await page.getByRole('button', { name: 'Buy credits' }).click();
    await page.getByTestId('top-up-dialog').waitFor();
    await page.keyboard.press('Escape');

    const onboarding = await signedInContext(browser, { ...ALICE, id: '1f7c2a9d-0000-4000-8000-000000000002', onboarded: false });
    const welcome = await onboarding.newPage();
    await welcome.goto(`${platform.shellUrl}/welcome`);
    await welcome.getByTestId('screen-welcome').waitFor({ timeout: 15_000 });

    const compare = () =>
      Object.fromEntries(
        Object.entries(window.__AIM_INSTANCES__ ?? {})
          .filter(([name]) => name !== 'shell')
          .map(([name, seen]) => [
            name,
            Object.fromEntries(
              Object.entries(seen)
                .filter(([key]) => key !== 'queryClient')
                .map(([key, value]) => [key, value === window.__AIM_INSTANCES__!.shell![key]]),
            ),
          ]),
      );
    const results = { ...(await page.evaluate(compare)), ...(await welcome.evaluate(compare)) };
    const keys = [
      'react',
      'reactDom',
      'reactDomClient',
      'router',
      'chakraSystem',
      'emotion',
      'jotaiStore',
      'jotaiStoreFromSubpath',
      'sharedKitSupabase',
      'sharedKitSession',
    ];
    const all = Object.fromEntries(keys.map((k) => [k, true]));
    expect(results).toEqual({ mfe_tools: all, mfe_assets: all, mfe_billing: all, mfe_developer: all, mfe_onboarding: all });
    // TanStack Query loads with the first remote that reads server state: one QueryClient for all of them
    const queryClients = await page.evaluate(() => {
      const seen = Object.entries(window.__AIM_INSTANCES__ ?? {}).filter(([, s]) => s.queryClient);
      return { names: seen.map(([name]) => name).sort(), distinct: new Set(seen.map(([, s]) => s.queryClient)).size };
    });
    expect(queryClients).toEqual({ names: ['mfe_assets', 'mfe_billing', 'mfe_developer'], distinct: 1 });
    expect(log.filter((line) => DUPLICATE_INSTANCE_SIGNS.some((re) => re.test(line)))).toEqual([]);
    await context.close();
    await onboarding.close();
  });

  it('keeps a preview override from an allowed origin for the tab, shows it, and resets it', async () => {
    const context = await signedInContext(browser, ALICE);
    const page = await context.newPage();
    // Any other running build works as a preview; the assets remote's origin stands in for one.
    const previewUrl = `${platform.remoteUrls.mfe_assets}/mf-manifest.json`;
    const manifestRequests: string[] = [];
    page.on('request', (r) => r.url().endsWith('mf-manifest.json') && manifestRequests.push(r.url()));
    await page.goto(`${platform.shellUrl}/dashboard/tools/midjourney?mf-preview=mfe_tools=${encodeURIComponent(previewUrl)}`);
    await expect(page.getByTestId('preview-badge').textContent()).resolves.toContain(`mfe_tools → ${previewUrl}`);
    expect(manifestRequests).toContain(previewUrl);
    expect(manifestRequests).not.toContain(`${platform.remoteUrls.mfe_tools}/mf-manifest.json`);
    expect(page.url()).not.toContain('mf-preview');

    await page.reload();
    await page.getByTestId('preview-badge').waitFor();
    await page.getByTestId('preview-reset').click();
    await page.getByTestId('screen-midjourney').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('preview-badge').count()).toBe(0);
    await context.close();
  });

  it('refuses a preview override from an origin that is not allow-listed', async () => {
    const context = await signedInContext(browser, ALICE);
    const page = await context.newPage();
    const evil = 'http://evil.example.com/mf-manifest.json';
    await page.goto(`${platform.shellUrl}/dashboard/tools/midjourney?mf-preview=mfe_tools=${encodeURIComponent(evil)}`);
    await expect(page.getByTestId('preview-refused').textContent()).resolves.toContain(evil);
    await page.getByTestId('screen-midjourney').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('preview-badge').count()).toBe(0);
    await context.close();
  });

  it('renders the frame: groups, short name, plan, credits, collapse, and screenshots in dark and light', async () => {
    for (const theme of ['dark', 'light'] as const) {
      const context = await signedInContext(browser, ALICE, { theme });
      const page = await context.newPage();
      await page.goto(`${platform.shellUrl}/dashboard/tools/midjourney`);
      await page.getByTestId('screen-midjourney').waitFor({ timeout: 15_000 });
      expect(await page.evaluate(() => document.documentElement.className)).toContain(theme);
      const sidebar = page.getByTestId('sidebar');
      for (const group of ['TOOLS', 'ASSETS', 'BILLING', 'API & LOGS']) await expect(sidebar.getByText(group, { exact: true }).count()).resolves.toBe(1);
      await expect(page.getByTestId('user-short-name').textContent()).resolves.toBe('alice');
      await expect(page.getByTestId('user-plan').textContent()).resolves.toBe('free');
      await expect(page.getByTestId('credits-count').textContent()).resolves.toBe('1,250');
      expect((await sidebar.boundingBox())?.width).toBe(240);
      await page.screenshot({ path: path.join(artifacts, `dashboard-${theme}.png`) });
      await page.getByTestId('sidebar-toggle').click();
      await page.waitForTimeout(300);
      expect((await sidebar.boundingBox())?.width).toBe(84);
      await page.screenshot({ path: path.join(artifacts, `dashboard-collapsed-${theme}.png`) });
      await context.close();

      const anon = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      await anon.addInitScript((t) => localStorage.setItem('aim.theme', t), theme);
      const login = await anon.newPage();
      await login.goto(`${platform.shellUrl}/dashboard`);
      await login.waitForURL('**/auth');
      await login.getByRole('button', { name: 'Send Magic Link' }).waitFor();
      expect(await login.getByRole('button', { name: 'Send Magic Link' }).isDisabled()).toBe(true);
      expect(await login.getByRole('button', { name: 'Sign in with GitHub' }).isDisabled()).toBe(true);
      await login.waitForTimeout(300);
      await login.screenshot({ path: path.join(artifacts, `login-${theme}.png`) });
      await anon.close();
    }
  });

  it('redirects unknown paths, remembers banner dismissal per user and the theme across reloads', async () => {
    const context = await signedInContext(browser, ALICE);
    const page = await context.newPage();
    await page.goto(`${platform.shellUrl}/no/such/page`);
    await page.waitForURL('**/dashboard/tools/midjourney');
    await page.getByTestId('screen-midjourney').waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => document.documentElement.className)).toContain('dark');

    await page.getByTestId('banner-dismiss').click();
    await page.getByTestId('theme-switch').selectOption('light');
    expect(await page.evaluate(() => document.documentElement.className)).toContain('light');
    await page.reload();
    await page.getByTestId('screen-midjourney').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('promo-banner').count()).toBe(0);
    expect(await page.evaluate(() => document.documentElement.className)).toContain('light');
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('aim.banner')))).toEqual([`aim.banner.dismissed.v1:${ALICE.id}`]);
    await context.close();

    // Another user in a fresh browser profile still sees the banner.
    const other = await signedInContext(browser, { ...ALICE, id: '1f7c2a9d-0000-4000-8000-000000000003', email: 'bob@example.com' });
    const otherPage = await other.newPage();
    await otherPage.goto(`${platform.shellUrl}/dashboard`);
    await otherPage.getByTestId('promo-banner').waitFor();
    await expect(otherPage.getByTestId('user-short-name').textContent()).resolves.toBe('bob');
    await other.close();
  });
});

describe('a dead remote', () => {
  let platform: Platform;
  beforeAll(async () => {
    platform = await startPlatform({ remoteManifests: { mfe_assets: 'http://127.0.0.1:9/missing/mf-manifest.json' } });
  });
  afterAll(async () => {
    await platform?.close();
  });

  it('shows a fallback with Retry in its own slot while the rest of the dashboard works', async () => {
    const context = await signedInContext(browser, ALICE);
    const page = await context.newPage();
    await page.goto(`${platform.shellUrl}/dashboard/assets/images`);
    const fallback = page.getByTestId('remote-fallback-mfe_assets');
    await fallback.waitFor({ timeout: 15_000 });
    await expect(fallback.getByRole('button', { name: 'Retry' }).count()).resolves.toBe(1);
    await page.screenshot({ path: path.join(artifacts, 'remote-fallback.png') });
    await page.getByRole('link', { name: 'Midjourney' }).click();
    await page.getByTestId('screen-midjourney').waitFor({ timeout: 15_000 });
    await expect(page.getByTestId('credits-count').textContent()).resolves.toBe('1,250');
    await context.close();
  });
});
