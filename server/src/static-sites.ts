import { existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { endSocket, guardHttpServer, requestUrl } from '@aim/supabase';
import sirv from 'sirv';

/**
 * Serves the built front-ends in embedded mode: the shell and each remote on its own origin
 * (as separately deployed CDNs would in production). The shell's origin also answers
 * /runtime-config.json, the one address from which any tool finds the running platform.
 */
export interface SiteSpec {
  /** Package folder name, e.g. "shell" or "mfe-tools". */
  name: string;
  port: number;
  /** Absolute path of the built site (the package's dist/). */
  dir: string;
}

export interface RunningSites {
  /** The port each site listens on, by name (what was asked for, or the one given for 0). */
  ports: Record<string, number>;
  close(): Promise<void>;
}

function notBuilt(res: http.ServerResponse, name: string) {
  res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'access-control-allow-origin': '*' });
  res.end(`${name} is not built yet: run \`npm run build\` (or \`npm start\`, which builds first).\n`);
}

/** Cache-Control for a file of a built front-end (docs/operations/previews-and-deploys.md, "CDN layout"). */
function cacheControl(pathname: string): string {
  // Content-hashed names never change content: cache for good. Everything else (index.html,
  // mf-manifest.json, mf-stats.json, unhashed icons) revalidates, so a deploy or a rollback is
  // picked up on the next load instead of after a heuristic freshness time.
  return /\.[0-9a-f]{8,}\./.test(pathname) ? 'public, max-age=31536000, immutable' : 'no-cache';
}

/**
 * The runtime config the shell fetches: the generated one, with the fields of RUNTIME_CONFIG_FILE
 * (when set) laid over it (`remotes` merged by name). The file is read on every request, so an
 * operator points a remote at a new manifest (or back, a rollback) without a restart or rebuild.
 */
function runtimeConfigBody(generated: unknown, file: string | undefined): string {
  if (!file) return JSON.stringify(generated, null, 2);
  const base = (generated ?? {}) as Record<string, unknown>;
  const overlay = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  if (!overlay || typeof overlay !== 'object' || Array.isArray(overlay)) throw new Error('it is not a JSON object');
  const remotes = { ...(base.remotes as object), ...(overlay.remotes as object) };
  return JSON.stringify({ ...base, ...overlay, remotes }, null, 2);
}

export async function startStaticSites(opts: {
  sites: SiteSpec[];
  host: string;
  runtimeConfig: () => unknown;
  /** RUNTIME_CONFIG_FILE: a JSON file laid over the generated runtime config, re-read per request. */
  runtimeConfigFile?: string;
}): Promise<RunningSites> {
  const servers: http.Server[] = [];
  const ports: Record<string, number> = {};
  for (const site of opts.sites) {
    const isShell = site.name === 'shell';
    const makeHandler = () =>
      sirv(site.dir, {
        single: true, // SPA fallback to index.html (deep links; standalone remotes)
        etag: true,
        setHeaders(res, pathname) {
          // Remotes are loaded cross-origin by the shell: manifests and chunks need CORS.
          if (!isShell) res.setHeader('access-control-allow-origin', '*');
          // The manifest and HTML must never be cached: a new deploy must be picked up at once.
          res.setHeader('cache-control', cacheControl(pathname));
        },
      });
    // sirv lists the folder once; a build (which rewrites dist/) while the platform runs is
    // picked up by making a new handler when the folder changes, like a redeploy.
    let current: { stamp: string; handle: ReturnType<typeof sirv> } | undefined;
    const serveDir = () => {
      if (!existsSync(site.dir)) return undefined;
      const st = statSync(site.dir);
      const stamp = `${st.ino}:${st.mtimeMs}`;
      if (current?.stamp !== stamp) current = { stamp, handle: makeHandler() };
      return current.handle;
    };
    const server = http.createServer((req, res) => {
      const url = requestUrl(req.url);
      if (!url) {
        // a request target WHATWG URL refuses (`//[`): 400, not an uncaught exception
        res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end('Bad request\n');
        return;
      }
      if (!isShell && req.method === 'OPTIONS') {
        res.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*' });
        res.end();
        return;
      }
      if (isShell && url.pathname === '/runtime-config.json') {
        const headers = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache', 'access-control-allow-origin': '*' };
        let body: string;
        try {
          body = runtimeConfigBody(opts.runtimeConfig(), opts.runtimeConfigFile);
        } catch (err) {
          // A broken file is the operator's to fix: say so, rather than serve a config they did not write.
          const error = `RUNTIME_CONFIG_FILE ${opts.runtimeConfigFile} cannot be used: ${(err as Error).message}`;
          console.error(`[sites] ${error}`);
          res.writeHead(500, headers);
          res.end(JSON.stringify({ error }));
          return;
        }
        res.writeHead(200, headers);
        res.end(body);
        return;
      }
      const handle = serveDir();
      if (!handle) return notBuilt(res, site.name);
      handle(req, res, () => {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...(isShell ? {} : { 'access-control-allow-origin': '*' }) });
        res.end('Not found\n');
      });
    });
    guardHttpServer(server);
    // nothing here takes upgrades: refuse them instead of leaving the socket open
    server.on('upgrade', (_req, socket) => endSocket(socket, 400));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(site.port, opts.host, () => resolve());
    });
    servers.push(server);
    ports[site.name] = (server.address() as AddressInfo).port;
  }
  return {
    ports,
    async close() {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise((r) => {
              s.closeAllConnections();
              s.close(r);
            }),
        ),
      );
    },
  };
}

export function siteDir(repoRoot: string, name: string) {
  return path.join(repoRoot, name, 'dist');
}
