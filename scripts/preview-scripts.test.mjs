// The per-remote preview commands (scripts/preview-build.mjs, scripts/preview-serve.mjs): the
// manifest stamp, the printed link and the folder server. Run by `npm test` (node --test).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readContractVersion, resolveRemoteFolder, stampFor, stampManifest } from './preview-build.mjs';
import { cacheControl, previewLink, servePreview } from './preview-serve.mjs';

const dir = mkdtempSync(path.join(tmpdir(), 'aim-preview-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('preview-build', () => {
  it('stamps version, commit and contract into metaData.aim, keeping the rest of the manifest', () => {
    writeFileSync(path.join(dir, 'mf-manifest.json'), JSON.stringify({ name: 'mfe_tools', metaData: { name: 'mfe_tools', publicPath: 'auto' }, exposes: [] }));
    const stamp = stampFor('mfe-tools');
    stampManifest(dir, stamp);
    const manifest = JSON.parse(readFileSync(path.join(dir, 'mf-manifest.json'), 'utf8'));
    assert.deepEqual(manifest.metaData, { name: 'mfe_tools', publicPath: 'auto', aim: stamp });
    assert.match(stamp.version, /^\d+\.\d+\.\d+/);
    assert.match(stamp.commit, /^([0-9a-f]{12}(\+dirty)?|unknown)$/);
    assert.equal(stamp.contract, readContractVersion());
  });

  it('reads the contract version from shared-kit/src/contract.ts', () => {
    const source = readFileSync(new URL('../shared-kit/src/contract.ts', import.meta.url), 'utf8');
    assert.ok(source.includes(`export const SHARED_KIT_CONTRACT = '${readContractVersion()}';`));
  });

  it('refuses a folder without a manifest, or a manifest without metaData', () => {
    assert.throws(() => stampManifest(path.join(dir, 'nothing'), {}), /does not exist: build the remote first/);
    writeFileSync(path.join(dir, 'mf-manifest.json'), '{}');
    assert.throws(() => stampManifest(dir, {}), /has no metaData/);
  });

  it('knows the remote from an argument or from the folder a package script runs in', () => {
    assert.equal(resolveRemoteFolder('mfe-billing'), 'mfe-billing');
    assert.equal(resolveRemoteFolder(undefined, '/repo/mfe-assets'), 'mfe-assets');
    assert.throws(() => resolveRemoteFolder(undefined, '/repo/shell'), /Which remote\?/);
    assert.throws(() => resolveRemoteFolder('../etc'), /Which remote\?/);
  });
});

describe('preview-serve', () => {
  let served;
  const site = path.join(dir, 'site');
  before(async () => {
    mkdirSync(path.join(site, 'static/js'), { recursive: true });
    writeFileSync(path.join(site, 'mf-manifest.json'), '{"name":"mfe_tools"}');
    writeFileSync(path.join(site, 'static/js/mfe_tools.0123456789.js'), 'entry()');
    writeFileSync(path.join(dir, 'secret.txt'), 'no');
    served = await servePreview({ dir: site, port: 0 });
  });
  after(() => served?.close());

  it('prints a link that opens the remote’s page with the override for that remote', () => {
    const link = new URL(previewLink('http://localhost:3000', 'mfe_billing', 'http://127.0.0.1:4103/mf-manifest.json'));
    assert.equal(link.origin + link.pathname, 'http://localhost:3000/dashboard/billing/subscription');
    assert.deepEqual(link.searchParams.getAll('mf-preview'), ['mfe_billing=http://127.0.0.1:4103/mf-manifest.json']);
  });

  it('serves the folder with CORS, the manifest revalidated and hashed files cached for good', async () => {
    const manifest = await fetch(`${served.origin}/mf-manifest.json`);
    assert.equal(manifest.status, 200);
    assert.equal(manifest.headers.get('access-control-allow-origin'), '*');
    assert.equal(manifest.headers.get('cache-control'), 'no-cache');
    assert.deepEqual(await manifest.json(), { name: 'mfe_tools' });
    const entry = await fetch(`${served.origin}/static/js/mfe_tools.0123456789.js`);
    assert.equal(entry.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(entry.headers.get('content-type'), 'text/javascript; charset=utf-8');
    const preflight = await fetch(`${served.origin}/mf-manifest.json`, { method: 'OPTIONS' });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), '*');
  });

  it('never serves a file outside the folder', async () => {
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/..%2fsecret.txt', '/static/../../secret.txt']) {
      const res = await fetch(`${served.origin}${p}`);
      assert.equal(res.status, 404, p);
    }
  });

  it('follows the CDN rules for any name', () => {
    assert.equal(cacheControl('/mf-manifest.json'), 'no-cache');
    assert.equal(cacheControl('/index.html'), 'no-cache');
    assert.equal(cacheControl('/mf-stats.json'), 'no-cache');
    assert.equal(cacheControl('/static/js/async/e.b3db83c098.js'), 'public, max-age=31536000, immutable');
  });
});
