import type http from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serve } from '@hono/node-server';
import { guardHttpServer } from '@aim/supabase';
import type { Db } from '@aim/supabase/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngineRegistry } from '../src/services/tasks/engine-registry.ts';
import { type RunningSites, startStaticSites } from '../src/static-sites.ts';
import { type HealthServer, startHealthServer } from '../src/workers/health-server.ts';
import { testApp } from './helpers.ts';
import { MALFORMED_REQUESTS, rawRequest } from './support/raw-http.ts';
import { openTestDb, scriptedEngine } from './support/tasks.ts';

// One malformed request line used to throw `TypeError: Invalid URL` in a listener and stop the
// whole process. Each listener of the launcher and the worker answers it, then serves on.
describe('listeners given malformed requests', () => {
  let root: string;
  let sites: RunningSites;
  let db: Db;
  let api: http.Server;
  let health: HealthServer;

  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'aim-malformed-'));
    for (const name of ['shell', 'mfe-tools']) {
      mkdirSync(path.join(root, name), { recursive: true });
      writeFileSync(path.join(root, name, 'index.html'), `<p>${name}</p>`);
    }
    sites = await startStaticSites({
      host: '127.0.0.1',
      runtimeConfig: () => ({}),
      sites: ['shell', 'mfe-tools'].map((name) => ({ name, port: 0, dir: path.join(root, name) })),
    });
    db = await openTestDb('pglite');
    // as main.ts listens: Hono's node-server, guarded
    api = await new Promise<http.Server>((resolve) => {
      const s = guardHttpServer(serve({ fetch: testApp(db).fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s)) as http.Server);
    });
    health = await startHealthServer({ db, engines: createEngineRegistry([scriptedEngine()]) }, { port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await sites?.close();
    api?.closeAllConnections();
    await new Promise((r) => api?.close(r));
    await health?.close();
    await db?.close();
    rmSync(root, { recursive: true, force: true });
  });

  const listeners: [name: string, port: () => number, normal: string, expected: RegExp][] = [
    ['the shell site', () => sites.ports.shell, '/', /^HTTP\/1\.1 400 /],
    ['a remote site', () => sites.ports['mfe-tools'], '/', /^HTTP\/1\.1 400 /],
    // node-server reads `//[` as a path of the Host's origin: a 404 is an answer too
    ['the provider API', () => (api.address() as AddressInfo).port, '/livez', /^HTTP\/1\.1 (400|404) /],
    ['the worker health port', () => health.port, '/livez', /^HTTP\/1\.1 (400|404) /],
  ];

  describe.each(listeners)('%s', (_name, port, normal, expected) => {
    it.each(MALFORMED_REQUESTS)('answers %s with an error status, then serves a normal request', async (_what, head) => {
      const line = await rawRequest(port(), head);
      // an upgrade nothing takes may also just be closed
      if (head.includes('Upgrade: websocket') && line === '') expect(line).toBe('');
      else expect(line).toMatch(expected);
      const res = await fetch(`http://127.0.0.1:${port()}${normal}`);
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    });
  });
});
