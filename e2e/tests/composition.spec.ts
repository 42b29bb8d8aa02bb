import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { expectMidjourney, screenshot } from '../support/journeys.ts';
import { PORTS, remoteUrl } from '../support/platform.ts';
import { serveBuild } from '../support/static-server.ts';
import { createUser, signIn } from '../support/users.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const withPreview = (to: string, remote: string, manifestUrl: string) => `${to}?mf-preview=${remote}=${encodeURIComponent(manifestUrl)}`;

test.describe('runtime composition of the remotes', () => {
  test('a remote whose manifest is missing shows its fallback with Retry while the rest of the dashboard works', async ({ context, page }) => {
    const user = await createUser('fallback', { onboarded: true });
    await signIn(context, user);
    const manifest = `${remoteUrl('mfe_assets')}/mf-manifest.json`;
    await page.route(manifest, (route) => route.fulfill({ status: 404, headers: { 'access-control-allow-origin': '*' }, body: 'Not Found' }));

    await page.goto('/dashboard/assets/images');
    const fallback = page.getByTestId('remote-fallback-mfe_assets');
    await expect(fallback).toBeVisible();
    await expect(fallback.getByRole('button', { name: 'Retry' })).toBeVisible();
    await expect(page.getByTestId('sidebar')).toBeVisible();
    await expect(page.getByTestId('credits-count')).toHaveText(new Intl.NumberFormat('en-US').format(user.row.credits));
    await screenshot(page, 'remote-fallback');

    // The other remotes still load in the same page; going back meets the same fallback.
    await page.getByTestId('sidebar').getByRole('link', { name: 'Midjourney' }).click();
    await expectMidjourney(page);
    await page.getByTestId('sidebar').getByRole('link', { name: 'Images' }).click();
    await expect(fallback).toBeVisible();

    // Once the remote is back, Retry brings it in without a reload.
    await page.unroute(manifest);
    await fallback.getByRole('button', { name: 'Retry' }).click();
    await expect(page.getByTestId('screen-images')).toBeVisible();
    await expect(fallback).toBeHidden();
  });

  test('a preview override from an allow-listed origin swaps one remote, shows the badge and can be reset', async ({ context, page }) => {
    const user = await createUser('previewer', { onboarded: true });
    await signIn(context, user);
    // A team's preview build on another localhost port (here: a copy of the tools remote's build).
    const preview = await serveBuild(path.join(root, 'mfe-tools', 'dist'), PORTS.preview);
    try {
      const previewManifest = `http://localhost:${PORTS.preview}/mf-manifest.json`;
      const released: string[] = [];
      page.on('request', (r) => r.url().startsWith(remoteUrl('mfe_tools')) && released.push(r.url()));

      await page.goto(withPreview('/dashboard/tools/midjourney', 'mfe_tools', previewManifest));
      await expectMidjourney(page);
      await expect(page.getByTestId('preview-badge')).toContainText(`mfe_tools → ${previewManifest}`);
      expect(preview.requests).toContain('/mf-manifest.json');
      expect(
        preview.requests.some((p) => p.endsWith('.js')),
        'the preview served the remote code',
      ).toBe(true);
      expect(released, 'nothing of the released tools remote was loaded').toEqual([]);
      // The override is kept for the tab, not in the address.
      expect(page.url()).not.toContain('mf-preview');
      await page.reload();
      await expect(page.getByTestId('preview-badge')).toBeVisible();
      await screenshot(page, 'preview-badge');

      await page.getByTestId('preview-reset').click();
      await expectMidjourney(page);
      await expect(page.getByTestId('preview-badge')).toBeHidden();
      expect(released.some((u) => u.endsWith('/mf-manifest.json'))).toBe(true);
    } finally {
      await preview.close();
    }
  });

  test('a preview override from an origin off the allow-list is refused with a notice and never fetched', async ({ context, page }) => {
    const user = await createUser('guarded', { onboarded: true });
    await signIn(context, user);
    const outside: string[] = [];
    // Nothing may leave loopback: record and stop anything that tries.
    await context.route(
      (url) => !['localhost', '127.0.0.1'].includes(url.hostname),
      (route) => {
        outside.push(route.request().url());
        return route.abort('blockedbyclient');
      },
    );
    const evil = 'http://evil.example.invalid/mf-manifest.json';
    await page.goto(withPreview('/dashboard/tools/midjourney', 'mfe_tools', evil));
    await expect(page.getByTestId('preview-refused')).toContainText(evil);
    await expectMidjourney(page);
    await expect(page.getByTestId('preview-badge')).toBeHidden();
    expect(outside).toEqual([]);
  });
});
