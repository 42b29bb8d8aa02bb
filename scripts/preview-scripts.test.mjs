// The per-remote preview commands (scripts/preview-build.mjs, scripts/preview-serve.mjs): the
// manifest stamp, the printed link and the folder server; the blocked ports and the release
// command (scripts/bad-ports.mjs, scripts/remote-release.mjs). Run by `npm test` (node --test).
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { readContractVersion, resolveRemoteFolder, stampFor, stampManifest } from './preview-build.mjs';
import { spawnSync } from 'node:child_process';
import { BAD_PORTS, portRefusal } from './bad-ports.mjs';
import { cacheControl, defaultPreviewPort, previewLink, servePreview } from './preview-serve.mjs';

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

  it('redoes the precompressed copies of the manifest it stamps', () => {
    const file = path.join(dir, 'mf-manifest.json');
    writeFileSync(file, JSON.stringify({ name: 'mfe_tools', metaData: { name: 'mfe_tools' } }));
    writeFileSync(`${file}.br`, brotliCompressSync('{"stale":true}'));
    writeFileSync(`${file}.gz`, gzipSync('{"stale":true}'));
    const stamp = stampManifest(dir, stampFor('mfe-tools'));
    const text = readFileSync(file, 'utf8');
    assert.equal(brotliDecompressSync(readFileSync(`${file}.br`)).toString(), text);
    assert.equal(gunzipSync(readFileSync(`${file}.gz`)).toString(), text);
    assert.deepEqual(JSON.parse(text).metaData.aim, stamp);
    rmSync(`${file}.br`);
    rmSync(`${file}.gz`);
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
    writeFileSync(path.join(site, 'static/js/mfe_tools.0123456789.js.br'), brotliCompressSync('entry()'));
    writeFileSync(path.join(site, 'static/js/mfe_tools.0123456789.js.gz'), gzipSync('entry()'));
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

  it('sends the precompressed copy the client accepts, with the file’s type and Vary', async () => {
    // node:http, not fetch: fetch adds its own Accept-Encoding and decodes the answer
    const get = (headers) =>
      new Promise((resolve, reject) => {
        http
          .get(`${served.origin}/static/js/mfe_tools.0123456789.js`, { headers }, (res) => {
            const parts = [];
            res.on('data', (b) => parts.push(b));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(parts) }));
          })
          .on('error', reject);
      });
    const br = await get({ 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['content-type'], 'text/javascript; charset=utf-8');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.equal(brotliDecompressSync(br.body).toString(), 'entry()');
    const gz = await get({ 'accept-encoding': 'br;q=0, gzip' });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gz.body).toString(), 'entry()');
    for (const headers of [{}, { 'accept-encoding': 'br', range: 'bytes=0-2' }]) {
      const plain = await get(headers);
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.equal(plain.headers.vary, 'Accept-Encoding');
    }
    assert.equal((await get({})).body.toString(), 'entry()');
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

describe('ports', () => {
  it('refuses the Fetch standard’s blocked ports with a clear message', () => {
    for (const port of [4190, 6000, 6665, 6669, 10080]) {
      assert.ok(BAD_PORTS.has(port));
      assert.match(portRefusal(port), /Fetch standard's blocked ports list .*Pick another port/);
    }
    assert.equal(portRefusal(4102), undefined);
    assert.match(portRefusal(70000), /not a TCP port/);
  });

  it('derives the preview port from the shell it targets, never a launcher port or a blocked one', () => {
    assert.equal(defaultPreviewPort('http://localhost:3000', 'mfe-tools'), 4101);
    assert.equal(defaultPreviewPort('http://localhost:3000', 'mfe-onboarding'), 4105);
    assert.equal(defaultPreviewPort('http://localhost:3100', 'mfe-assets'), 4202);
    // 3089 + 1101 = 4190, a blocked port
    assert.equal(defaultPreviewPort('http://localhost:3089', 'mfe-tools'), 4200);
    const launcherPorts = [3000, 3001, 3002, 3003, 3004, 3005, 8080, 54321];
    for (const folder of ['mfe-tools', 'mfe-assets', 'mfe-billing', 'mfe-developer', 'mfe-onboarding']) {
      assert.ok(!launcherPorts.includes(defaultPreviewPort('http://localhost:3000', folder)));
    }
  });

  it('preview-serve refuses a blocked port before serving', () => {
    writeFileSync(path.join(dir, 'mf-manifest.json'), '{}');
    const r = spawnSync(process.execPath, ['scripts/preview-serve.mjs', 'mfe-tools', '--dir', dir, '--port', '6666'], {
      cwd: new URL('..', import.meta.url),
      encoding: 'utf8',
    });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /port 6666 is on the Fetch standard's blocked ports list/);
  });
});

describe('remote-release', () => {
  const data = path.join(dir, 'release-data');
  const built = path.join(dir, 'built');
  const run = (args, env = {}) =>
    spawnSync(process.execPath, ['scripts/remote-release.mjs', ...args], {
      cwd: new URL('..', import.meta.url),
      encoding: 'utf8',
      env: { ...process.env, REMOTES_CONFIG_DIR: path.join(data, 'remotes'), RELEASES_DIR: path.join(data, 'releases'), ...env },
    });
  const manifest = (contract, exposes = [{ path: './App', name: 'App' }]) =>
    JSON.stringify({ name: 'mfe_assets', metaData: { name: 'mfe_assets', aim: { version: '0.1.0', commit: 'c0ffee', contract } }, exposes });

  it('deploys a built folder, lists it as live, rolls back, and refuses an incompatible build with the reason', () => {
    mkdirSync(built, { recursive: true });
    writeFileSync(path.join(built, 'mf-manifest.json'), manifest(readContractVersion()));
    const first = run(['deploy', 'mfe-assets', '--from', built, '--by', 'alice']);
    assert.equal(first.status, 0, first.stderr);
    assert.match(first.stdout, /Deployed mfe_assets 0\.1\.0 \(commit c0ffee, contract .*\) by alice/);
    assert.match(first.stdout, /Manifest +http:\/\/localhost:3002\/releases\/\d{8}T\d{9}Z-c0ffee\/mf-manifest\.json/);
    assert.equal(run(['deploy', 'mfe-assets', '--from', built, '--by', 'bob']).status, 0);
    const list = run(['list', 'mfe-assets']);
    assert.match(list.stdout, /live +\S+-c0ffee +0\.1\.0 +commit c0ffee +contract \S+ +by bob/);
    assert.match(list.stdout, /rollback \S+-c0ffee .* by alice/);
    const back = run(['rollback', 'mfe-assets', '--by', 'ops']);
    assert.equal(back.status, 0, back.stderr);
    assert.match(back.stdout, /Rolled mfe_assets back from/);

    writeFileSync(path.join(built, 'mf-manifest.json'), manifest('99.0.0'));
    const refused = run(['deploy', 'mfe-assets', '--from', built]);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /refused: mfe_assets 0\.1\.0 \(commit c0ffee\): it was built against shared-kit contract 99\.0\.0/);
    writeFileSync(path.join(built, 'mf-manifest.json'), manifest(readContractVersion(), []));
    assert.match(run(['deploy', 'mfe-assets', '--from', built]).stderr, /does not expose \.\/App, which this shell mounts/);
  });

  it('refuses to deploy for a remote served on a blocked port', () => {
    const r = run(['deploy', 'mfe-assets', '--from', built], { MFE_ASSETS_PORT: '6000' });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /port 6000 is on the Fetch standard's blocked ports list/);
  });
});
