import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';
import { SHARED_KIT_CONTRACT } from '../../shared-kit/src/contract.ts';
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

      // Operators' diagnostics (not in the sidebar): the preview's origin, stamp and flag.
      await page.goto('/dashboard/diagnostics');
      const row = page.getByTestId('diagnostics-mfe_tools');
      await expect(row).toContainText(`http://localhost:${PORTS.preview}`);
      await expect(row).toContainText('Preview');
      await expect(row).toContainText(SHARED_KIT_CONTRACT);
      await expect(row).toContainText(/[0-9a-f]{12}/);
      await expect(page.getByTestId('diagnostics-status-mfe_tools')).toHaveText(/Compatible|Accepted in this tab/);
      await expect(page.getByTestId('diagnostics-mfe_assets')).toContainText(remoteUrl('mfe_assets'));
      await expect(page.getByTestId('sidebar').getByRole('link', { name: 'Diagnostics' })).toHaveCount(0);
      await screenshot(page, 'diagnostics');
      await page.goto('/dashboard/tools/midjourney');
      await expectMidjourney(page);

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

  test('a preview built against an incompatible shared-kit contract is refused in its slot before its code runs', async ({ context, page }) => {
    const user = await createUser('incompatible', { onboarded: true });
    await signIn(context, user);
    const preview = await serveBuild(path.join(root, 'mfe-tools', 'dist'), PORTS.preview);
    try {
      const previewManifest = `http://localhost:${PORTS.preview}/mf-manifest.json`;
      // The same build, stamped as if built against the next major contract.
      await page.route(previewManifest, async (route) => {
        const manifest = await (await route.fetch()).json();
        manifest.metaData.aim = { ...manifest.metaData.aim, version: '9.9.9', commit: 'feedfacecafe', contract: '99.0.0' };
        await route.fulfill({ json: manifest, headers: { 'access-control-allow-origin': '*' } });
      });
      await page.goto(withPreview('/dashboard/tools/midjourney', 'mfe_tools', previewManifest));
      const refused = page.getByTestId('remote-refused-mfe_tools');
      await expect(refused).toContainText('Tools was not loaded: this build is not compatible with the dashboard.');
      await expect(refused).toContainText(
        `mfe_tools 9.9.9 (commit feedfacecafe): it was built against shared-kit contract 99.0.0, this shell provides ${SHARED_KIT_CONTRACT} (major versions differ).`,
      );
      await expect(page.getByTestId('sidebar')).toBeVisible();
      await expect(page.getByTestId('screen-midjourney')).toBeHidden();
      expect(
        preview.requests.filter((p) => p !== '/mf-manifest.json'),
        'only the manifest was fetched: no code of the refused build',
      ).toEqual([]);
      await screenshot(page, 'remote-refused');

      // The rest of the dashboard works; diagnostics names the refusal.
      await page.getByTestId('sidebar').getByRole('link', { name: 'Images' }).click();
      await expect(page.getByTestId('screen-images')).toBeVisible();
      await page.goto('/dashboard/diagnostics');
      await expect(page.getByTestId('diagnostics-status-mfe_tools')).toContainText('Refused: mfe_tools 9.9.9 (commit feedfacecafe)');
      await page.getByTestId('preview-reset').click();
    } finally {
      await preview.close();
    }
  });

  test('a change of the runtime config (a new remote version, then a rollback) is picked up on the next load', async ({ context, page }) => {
    const user = await createUser('deployer', { onboarded: true });
    await signIn(context, user);
    // "v2" of the tools remote, published on its own origin (here: a copy of the build).
    const v2 = await serveBuild(path.join(root, 'mfe-tools', 'dist'), PORTS.preview);
    try {
      const released = `${remoteUrl('mfe_tools')}/mf-manifest.json`;
      const next = `http://localhost:${PORTS.preview}/mf-manifest.json`;
      let pointTo = released;
      // What an operator edits: the config the shell fetches at every load (RUNTIME_CONFIG_FILE on
      // our server, a file on a CDN); the server side of it is in server/test/static-sites.test.ts.
      await page.route('**/runtime-config.json', async (route) => {
        const config = await (await route.fetch()).json();
        await route.fulfill({ json: { ...config, remotes: { ...config.remotes, mfe_tools: pointTo } } });
      });

      await page.goto('/dashboard/tools/midjourney');
      await expectMidjourney(page);
      expect(v2.requests).toEqual([]);

      pointTo = next; // ship v2
      await page.reload();
      await expectMidjourney(page);
      expect(v2.requests).toContain('/mf-manifest.json');
      expect(v2.requests.some((p) => p.endsWith('.js'))).toBe(true);
      await expect(page.getByTestId('preview-badge')).toBeHidden(); // a deploy, not a preview
      await page.goto('/dashboard/diagnostics');
      await expect(page.getByTestId('diagnostics-mfe_tools')).toContainText(`http://localhost:${PORTS.preview}`);

      pointTo = released; // roll back
      const before = v2.requests.length;
      await page.goto('/dashboard/tools/midjourney');
      await expectMidjourney(page);
      expect(v2.requests.length).toBe(before);
    } finally {
      await v2.close();
    }
  });
});
