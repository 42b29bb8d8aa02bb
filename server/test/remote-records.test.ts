import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_KIT_CONTRACT } from '@aim/shared-kit/contract';
import { currentRecord, deployRelease, listReleases, newReleaseId, pruneReleases, rollbackRelease } from '../src/remotes/releases.ts';
import {
  type RemoteEntry,
  type RemoteSite,
  createRemoteRecords,
  lastGoodFile,
  parseRecord,
  recordFile,
  validateEntry,
  writeFileAtomic,
} from '../src/remotes/remote-records.ts';
import { type RunningSites, startStaticSites } from '../src/static-sites.ts';

// Per-remote records (server/src/remotes/): each team's record is validated with the shell's own
// manifest check before it is accepted, written atomically, and a refused one (a bad deploy, a
// hand edit into broken JSON) leaves that remote on its last good entry and the others alone.

const manifest = (name: string, extra: Record<string, unknown> = {}, exposes = ['./App']) =>
  JSON.stringify({
    name,
    metaData: { name, publicPath: 'auto', aim: { version: '1.2.3', commit: 'abc', contract: SHARED_KIT_CONTRACT, ...extra } },
    exposes: exposes.map((p) => ({ path: p, name: p.slice(2) })),
  });

let root: string;
let server: http.Server;
let base: string;
const served: Record<string, { status?: number; body: string }> = {};
const hits: string[] = [];
const assets: RemoteSite = { mf: 'mfe_assets', folder: 'mfe-assets', origin: 'http://localhost:3002' };
const tools: RemoteSite = { mf: 'mfe_tools', folder: 'mfe-tools', origin: 'http://localhost:3001' };
const entry = (over: Partial<RemoteEntry>): RemoteEntry => ({ by: 'team', at: '2026-11-28T10:00:00.000Z', ...over });

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'aim-records-'));
  server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    const hit = served[req.url ?? ''];
    if (!hit) return res.writeHead(404).end('nope');
    res.writeHead(hit.status ?? 200, { 'content-type': 'application/json' }).end(hit.body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  rmSync(root, { recursive: true, force: true });
});

describe('validation of an entry: each refusal says why', () => {
  const check = (e: RemoteEntry, site = assets) => validateEntry(e, { site, releasesDir: path.join(root, 'releases') });
  beforeAll(() => {
    served['/ok.json'] = { body: manifest('mfe_assets') };
    served['/other.json'] = { body: manifest('mfe_tools') };
    served['/flat.json'] = { body: '{"name":"mfe_assets"}' };
    served['/major.json'] = { body: manifest('mfe_assets', { contract: '99.0.0' }) };
    served['/newer-minor.json'] = { body: manifest('mfe_assets', { contract: `${SHARED_KIT_CONTRACT.split('.')[0]}.99.0` }) };
    served['/no-app.json'] = { body: manifest('mfe_assets', {}, ['./Other']) };
    served['/html.json'] = { body: '<html>' };
  });

  it('accepts a reachable manifest the shell would accept', async () => {
    const ok = await check(entry({ manifest: `${base}/ok.json` }));
    expect(ok).toMatchObject({ ok: true, url: `${base}/ok.json`, verdict: { version: '1.2.3', contract: SHARED_KIT_CONTRACT } });
  });

  it.each([
    ['neither manifest nor release', entry({}), /exactly one of "manifest".*"release"/],
    ['both', entry({ manifest: 'http://x/m.json', release: 'r1' }), /exactly one of/],
    ['a relative manifest URL', entry({ manifest: '/mf-manifest.json' }), /is not an absolute URL/],
    ['another scheme', entry({ manifest: 'javascript:alert(1)' }), /is not an http\(s\) URL/],
    ['a release id that is a path', entry({ release: '../../etc' }), /is not a release id/],
    ['no author', { manifest: 'http://x/m.json', at: '2026-11-28T10:00:00Z' } as RemoteEntry, /by \(who deployed\) is missing/],
    ['no date', entry({ manifest: 'http://x/m.json', at: 'yesterday' }), /at \(when\) is not a date/],
  ])('schema: %s', async (_label, e, reason) => {
    const v = await check(e);
    expect(v.ok).toBe(false);
    expect(!v.ok && v.reason).toMatch(reason);
  });

  it.each([
    ['a manifest that answers 404', '/missing.json', /answered 404/],
    ['a body that is not JSON', '/html.json', /body is not JSON/],
    ['not a federation manifest', '/flat.json', /is not a federation manifest/],
    ['the manifest of another remote', '/other.json', /is the manifest of mfe_tools, not of mfe_assets/],
    ['another major contract', '/major.json', /shared-kit contract 99\.0\.0.*major versions differ/],
    ['a newer minor contract', '/newer-minor.json', /newer than the .* this shell provides/],
    ['a build without an expose the shell mounts', '/no-app.json', /does not expose \.\/App, which this shell mounts/],
  ])('manifest: %s', async (_label, p, reason) => {
    const v = await check(entry({ manifest: `${base}${p}` }));
    expect(v.ok).toBe(false);
    expect(!v.ok && v.reason).toMatch(reason);
  });

  it('names an unreachable origin, and a port the Fetch standard blocks', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const down = await check(entry({ manifest: `http://127.0.0.1:${port}/mf-manifest.json` }));
    expect(!down.ok && down.reason).toMatch(/is not reachable \(.*ECONNREFUSED/);
    const bad = await check(entry({ manifest: 'http://127.0.0.1:4190/mf-manifest.json' }));
    expect(!bad.ok && bad.reason).toMatch(/port 4190 is on the Fetch standard's blocked ports list/);
  });

  it('reads a release from the releases folder, and refuses one that does not exist', async () => {
    const dir = path.join(root, 'releases', 'mfe-assets', 'r-ok');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'mf-manifest.json'), manifest('mfe_assets'));
    expect(await check(entry({ release: 'r-ok' }))).toMatchObject({ ok: true, url: 'http://localhost:3002/releases/r-ok/mf-manifest.json' });
    const gone = await check(entry({ release: 'r-gone' }));
    expect(!gone.ok && gone.reason).toMatch(/release r-gone does not exist/);
  });

  it('parses a record only for the remote it is named for', () => {
    const text = JSON.stringify({ remote: 'mfe_assets', current: entry({ release: 'r1' }), previous: [] });
    expect(parseRecord('mfe_assets', text).current.release).toBe('r1');
    expect(() => parseRecord('mfe_tools', text)).toThrow(/"remote" is "mfe_assets", not "mfe_tools"/);
    expect(() => parseRecord('mfe_assets', '{"remote": "mfe_assets",')).toThrow(/not valid JSON/);
    expect(() => parseRecord('mfe_assets', JSON.stringify({ remote: 'mfe_assets', current: entry({ release: 'r1' }) }))).toThrow(/"previous" is not a list/);
  });
});

describe('atomic writes', () => {
  it('a crash between the write and the rename leaves the old record whole', () => {
    const dir = mkdtempSync(path.join(root, 'atomic-'));
    const file = path.join(dir, 'mfe_assets.json');
    writeFileAtomic(file, '{"old":true}\n');
    expect(() =>
      writeFileAtomic(file, '{"new":true}\n', {
        beforeRename: () => {
          throw new Error('power cut');
        },
      }),
    ).toThrow('power cut');
    expect(readFileSync(file, 'utf8')).toBe('{"old":true}\n');
    // the half-done temp file is a dot file the launcher never reads as a record
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toHaveLength(1);
    writeFileAtomic(file, '{"new":true}\n');
    expect(readFileSync(file, 'utf8')).toBe('{"new":true}\n');
  });
});

describe('the launcher’s records: last good per remote, read per request with a cache', () => {
  let dir: string;
  const logs: string[] = [];
  const counting = (url: string | URL | Request, init?: RequestInit) => fetch(url, init);
  const defaults = { mfe_assets: 'http://localhost:3002/mf-manifest.json', mfe_tools: 'http://localhost:3001/mf-manifest.json' };
  const write = (remote: string, current: RemoteEntry, previous: RemoteEntry[] = []) =>
    writeFileSync(recordFile(dir, remote), JSON.stringify({ remote, current, previous }));

  beforeAll(() => {
    dir = mkdtempSync(path.join(root, 'records-'));
    served['/assets-v1.json'] = { body: manifest('mfe_assets', { version: '1.0.0' }) };
    served['/assets-v2.json'] = { body: manifest('mfe_assets', { version: '2.0.0' }) };
    served['/assets-bad.json'] = { body: manifest('mfe_assets', { contract: '99.0.0' }) };
    served['/tools-v1.json'] = { body: manifest('mfe_tools', { version: '1.0.0' }) };
  });

  it('lays accepted records over the defaults, validating each change once', async () => {
    const records = createRemoteRecords({ dir, sites: [assets, tools], log: (l) => logs.push(l), fetch: counting });
    expect(await records.remotes(defaults)).toEqual(defaults);
    write('mfe_assets', entry({ manifest: `${base}/assets-v1.json` }));
    hits.length = 0;
    expect((await records.remotes(defaults)).mfe_assets).toBe(`${base}/assets-v1.json`);
    for (let i = 0; i < 5; i++) await records.remotes(defaults);
    expect(hits.filter((h) => h === '/assets-v1.json')).toHaveLength(1);
    expect(existsSync(lastGoodFile(dir, 'mfe_assets'))).toBe(true);
  });

  it('refuses an incompatible change and a record broken by hand: that remote keeps its last good entry, the others move on', async () => {
    const records = createRemoteRecords({ dir, sites: [assets, tools], log: (l) => logs.push(l) });
    write('mfe_assets', entry({ manifest: `${base}/assets-v2.json` }));
    expect((await records.remotes(defaults)).mfe_assets).toBe(`${base}/assets-v2.json`);

    write('mfe_assets', entry({ manifest: `${base}/assets-bad.json` }));
    expect((await records.remotes(defaults)).mfe_assets).toBe(`${base}/assets-v2.json`);
    expect(logs.at(-1)).toMatch(/mfe_assets\.json refused: .*major versions differ.*keeps its last good entry .*assets-v2\.json/);

    writeFileSync(recordFile(dir, 'mfe_assets'), '{ "remote": "mfe_assets", "current": { , }');
    write('mfe_tools', entry({ manifest: `${base}/tools-v1.json` }));
    const out = await records.remotes(defaults);
    expect(out).toEqual({ mfe_assets: `${base}/assets-v2.json`, mfe_tools: `${base}/tools-v1.json` });
    expect(logs.some((l) => /mfe_assets\.json refused: it is not valid JSON/.test(l))).toBe(true);

    // a restarted launcher finds the last good entry on disk beside the broken record
    const restarted = createRemoteRecords({ dir, sites: [assets, tools], log: (l) => logs.push(l) });
    expect((await restarted.remotes(defaults)).mfe_assets).toBe(`${base}/assets-v2.json`);

    // the record removed: back to the launcher's default
    rmSync(recordFile(dir, 'mfe_assets'));
    expect((await records.remotes(defaults)).mfe_assets).toBe(defaults.mfe_assets);
  });
});

describe('releases: deploy, rollback, pruning', () => {
  let configDir: string;
  let releasesDir: string;
  let build: string;
  const ctx = () => ({ site: assets, configDir, releasesDir });
  const day = (n: number) => new Date(Date.UTC(2026, 10, n, 12));

  beforeAll(() => {
    configDir = mkdtempSync(path.join(root, 'cfg-'));
    releasesDir = mkdtempSync(path.join(root, 'rel-'));
    build = mkdtempSync(path.join(root, 'build-'));
    writeFileSync(path.join(build, 'mf-manifest.json'), manifest('mfe_assets'));
  });

  it('refuses an incompatible build before anything is copied or pointed', async () => {
    const bad = mkdtempSync(path.join(root, 'bad-'));
    writeFileSync(path.join(bad, 'mf-manifest.json'), manifest('mfe_assets', { contract: '99.0.0' }));
    await expect(deployRelease(ctx(), bad, 'team')).rejects.toThrow(/refused: .*major versions differ/);
    expect(listReleases(releasesDir, 'mfe-assets')).toEqual([]);
    expect(existsSync(recordFile(configDir, 'mfe_assets'))).toBe(false);
  });

  it('deploys into versioned folders, rolls back, keeps 5 and never prunes the live one or the rollback target', async () => {
    const ids: string[] = [];
    for (let n = 1; n <= 7; n++) ids.push((await deployRelease(ctx(), build, `dev${n}`, day(n))).id);
    expect(ids[0]).toBe(newReleaseId('abc', day(1)));
    expect(listReleases(releasesDir, 'mfe-assets').map((r) => r.id)).toEqual(ids.slice(2));
    const record = currentRecord(configDir, 'mfe_assets').record;
    expect(record?.current).toMatchObject({ release: ids[6], by: 'dev7', contract: SHARED_KIT_CONTRACT });
    expect(record?.previous[0].release).toBe(ids[5]);

    const back = await rollbackRelease(ctx(), 'ops', day(8));
    expect(back.record.current).toMatchObject({ release: ids[5], by: 'ops' });
    // after two rollbacks the live release is the oldest kept; pruning must spare it and its predecessor
    await rollbackRelease(ctx(), 'ops', day(9));
    await rollbackRelease(ctx(), 'ops', day(10));
    await rollbackRelease(ctx(), 'ops', day(11));
    const live = currentRecord(configDir, 'mfe_assets').record;
    expect(live?.current.release).toBe(ids[2]);
    expect(live?.previous[0].release).toBe(ids[1]); // pruned already: rollback to it is refused by validation
    await expect(rollbackRelease(ctx(), 'ops')).rejects.toThrow(/release .* does not exist/);
    expect(pruneReleases(releasesDir, 'mfe-assets', [ids[2]], 2)).toEqual([ids[3], ids[4]]);
    expect(listReleases(releasesDir, 'mfe-assets').map((r) => r.id)).toEqual([ids[2], ids[5], ids[6]]);
  });

  it('deploys over a record broken by hand, from its last good entry', async () => {
    writeFileSync(recordFile(configDir, 'mfe_assets'), '{ broken');
    const done = await deployRelease(ctx(), build, 'fixer', day(20));
    expect(done.record.previous[0].release).toBeDefined();
    expect(parseRecord('mfe_assets', readFileSync(recordFile(configDir, 'mfe_assets'), 'utf8')).current.release).toBe(done.id);
  });
});

describe('the runtime config assembled from the records, and releases served on the remote origin', () => {
  let sites: RunningSites;
  let dir: string;
  let releasesDir: string;
  const load = async () => (await (await fetch(`http://127.0.0.1:${sites.ports.shell}/runtime-config.json`)).json()) as { remotes: Record<string, string> };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(root, 'assembled-'));
    releasesDir = path.join(dir, 'releases');
    const release = path.join(releasesDir, 'mfe-assets', 'r7');
    mkdirSync(path.join(release, 'static/js'), { recursive: true });
    writeFileSync(path.join(release, 'mf-manifest.json'), manifest('mfe_assets'));
    writeFileSync(path.join(release, 'static/js/app.0123456789.js'), 'app()');
    writeFileSync(path.join(release, 'static/js/app.0123456789.js.br'), brotliCompressSync('app()'));
    const records = createRemoteRecords({ dir: path.join(dir, 'remotes'), sites: [assets, tools], releasesDir, log: () => {} });
    const defaults = { mfe_assets: 'http://localhost:3002/mf-manifest.json', mfe_tools: 'http://localhost:3001/mf-manifest.json' };
    sites = await startStaticSites({
      host: '127.0.0.1',
      runtimeConfig: async () => ({ mode: 'embedded', remotes: await records.remotes(defaults) }),
      sites: [
        { name: 'shell', port: 0, dir: path.join(dir, 'shell') },
        { name: 'mfe-assets', port: 0, dir: path.join(dir, 'dist'), releasesDir: path.join(releasesDir, 'mfe-assets') },
      ],
    });
  });
  afterAll(() => sites?.close());

  it('points one remote at a release without a restart, leaving the rest of the config alone', async () => {
    expect((await load()).remotes.mfe_assets).toBe('http://localhost:3002/mf-manifest.json');
    mkdirSync(path.join(dir, 'remotes'), { recursive: true });
    writeFileAtomic(
      recordFile(path.join(dir, 'remotes'), 'mfe_assets'),
      JSON.stringify({ remote: 'mfe_assets', current: entry({ release: 'r7' }), previous: [] }),
    );
    const config = await load();
    expect(config).toEqual({
      mode: 'embedded',
      remotes: { mfe_assets: 'http://localhost:3002/releases/r7/mf-manifest.json', mfe_tools: 'http://localhost:3001/mf-manifest.json' },
    });
  });

  it('serves /releases/<id>/ with CORS, the cache rules and the precompressed files; 404 for others', async () => {
    const at = (p: string, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${sites.ports['mfe-assets']}${p}`, { headers });
    const m = await at('/releases/r7/mf-manifest.json');
    expect(m.status).toBe(200);
    expect(m.headers.get('access-control-allow-origin')).toBe('*');
    expect(m.headers.get('cache-control')).toBe('no-cache');
    expect(((await m.json()) as { name: string }).name).toBe('mfe_assets');
    const chunk = await at('/releases/r7/static/js/app.0123456789.js', { 'accept-encoding': 'br' });
    expect(chunk.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(chunk.headers.get('content-encoding')).toBe('br');
    expect(await chunk.text()).toBe('app()'); // fetch decodes the br body
    expect((await at('/releases/r8/mf-manifest.json')).status).toBe(404);
    expect((await at('/releases/r7/nothing.js')).status).toBe(404);
    expect((await at('/releases/..%2F..%2Fetc/passwd')).status).toBe(404);
  });
});
