import { existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const REMOTE_DIRS = {
  mfe_tools: 'mfe-tools',
  mfe_assets: 'mfe-assets',
  mfe_billing: 'mfe-billing',
  mfe_developer: 'mfe-developer',
  mfe_onboarding: 'mfe-onboarding',
} as const;
export type RemoteKey = keyof typeof REMOTE_DIRS;

/** Where the fake Supabase lives: nothing listens here, the browser test answers it with page.route. */
export const FAKE_SUPABASE = 'http://127.0.0.1:9';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.html': 'text/html',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

function distOf(dir: string): string {
  const dist = path.join(root, dir, 'dist');
  if (!existsSync(path.join(dist, 'index.html'))) {
    throw new Error(`${dir} is not built: run \`pnpm --filter ./${dir} build\` first`);
  }
  return dist;
}

/** A static site like the embedded server's: SPA fallback, CORS for remotes, optional extra routes. */
function serve(dist: string, extra?: (url: URL, res: http.ServerResponse) => boolean): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (extra?.(url, res)) return;
    let file = path.join(dist, decodeURIComponent(url.pathname));
    if (!file.startsWith(dist)) return void res.writeHead(403).end();
    if (!existsSync(file) || statSync(file).isDirectory()) {
      if (path.extname(url.pathname)) return void res.writeHead(404, { 'access-control-allow-origin': '*' }).end();
      file = path.join(dist, 'index.html');
    }
    res.writeHead(200, {
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'access-control-allow-origin': '*',
    });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

const urlOf = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

export type Platform = {
  shellUrl: string;
  remoteUrls: Record<RemoteKey, string>;
  close(): Promise<void>;
};

/**
 * The built shell and remotes on loopback ports, each on its own origin, with the shell answering
 * /runtime-config.json. `remoteManifests` replaces manifest URLs (e.g. a dead one).
 */
export async function startPlatform(
  options: { remoteManifests?: Partial<Record<RemoteKey, string>>; remoteTimeoutMs?: number; supabaseUrl?: string; supabaseAnonKey?: string } = {},
): Promise<Platform> {
  const supabaseUrl = options.supabaseUrl ?? FAKE_SUPABASE;
  const remoteServers = await Promise.all(Object.values(REMOTE_DIRS).map((dir) => serve(distOf(dir))));
  const remoteUrls = Object.fromEntries(Object.keys(REMOTE_DIRS).map((name, i) => [name, urlOf(remoteServers[i]!)])) as Record<RemoteKey, string>;
  const config = {
    mode: 'embedded',
    supabaseUrl,
    supabaseAnonKey: options.supabaseAnonKey ?? 'anon-key',
    apiBaseUrl: 'http://127.0.0.1:10',
    captcha: { provider: 'altcha', challengeUrl: `${supabaseUrl}/auth/v1/captcha/challenge` },
    remotes: Object.fromEntries(
      Object.keys(REMOTE_DIRS).map((name) => [name, options.remoteManifests?.[name as RemoteKey] ?? `${remoteUrls[name as RemoteKey]}/mf-manifest.json`]),
    ),
    previewAllowList: ['http://127.0.0.1:*'],
    docsUrl: 'http://127.0.0.1:10/docs',
    remoteTimeoutMs: options.remoteTimeoutMs,
  };
  const shell = await serve(distOf('shell'), (url, res) => {
    if (url.pathname !== '/runtime-config.json') return false;
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache' }).end(JSON.stringify(config));
    return true;
  });
  const servers = [shell, ...remoteServers];
  return {
    shellUrl: urlOf(shell),
    remoteUrls,
    close: () => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))).then(() => undefined),
  };
}
