import { existsSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
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

export async function startStaticSites(opts: { sites: SiteSpec[]; host: string; runtimeConfig: () => unknown }): Promise<RunningSites> {
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
          if (pathname.endsWith('.html') || pathname.endsWith('mf-manifest.json') || pathname === '/') {
            res.setHeader('cache-control', 'no-cache');
          } else if (/\.[0-9a-f]{8,}\./.test(pathname)) {
            res.setHeader('cache-control', 'public, max-age=31536000, immutable');
          }
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
      const url = new URL(req.url ?? '/', 'http://localhost');
      if (!isShell && req.method === 'OPTIONS') {
        res.writeHead(204, { 'access-control-allow-origin': '*', 'access-control-allow-headers': '*' });
        res.end();
        return;
      }
      if (isShell && url.pathname === '/runtime-config.json') {
        res.writeHead(200, {
          'content-type': 'application/json; charset=utf-8',
          'cache-control': 'no-cache',
          'access-control-allow-origin': '*',
        });
        res.end(JSON.stringify(opts.runtimeConfig(), null, 2));
        return;
      }
      const handle = serveDir();
      if (!handle) return notBuilt(res, site.name);
      handle(req, res, () => {
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', ...(isShell ? {} : { 'access-control-allow-origin': '*' }) });
        res.end('Not found\n');
      });
    });
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
