import { existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { endSocket, guardHttpServer, requestUrl } from '@aim/supabase';
import sirv from 'sirv';
import { RELEASE_ID } from './remotes/remote-records.ts';

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
  /** A remote's release folders (`<RELEASES_DIR>/<folder>`), served under /releases/<id>/ (remotes/releases.ts). */
  releasesDir?: string;
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
 * The Accept-Encoding sirv should see. sirv picks x.br / x.gz by a substring test, so codings
 * refused with q=0 (`br;q=0`) are dropped here; a Range request gets the identity file, the
 * representation media players and resumed downloads expect byte offsets of.
 */
function negotiableEncodings(acceptEncoding: string | undefined, hasRange: boolean): string {
  if (hasRange || !acceptEncoding) return '';
  return acceptEncoding
    .split(',')
    .map((part) => part.trim())
    .filter((part) => {
      const q = /;\s*q=([0-9.]+)/i.exec(part);
      return part && !(q && Number(q[1]) === 0);
    })
    .map((part) => part.split(';')[0].trim().toLowerCase())
    .join(', ');
}

/**
 * The runtime config the shell fetches: the generated one, with the fields of RUNTIME_CONFIG_FILE
 * (when set) laid over it (`remotes` merged by name). The file is read on every request, so an
 * operator points a remote at a new manifest (or back, a rollback) without a restart or rebuild.
 */
function runtimeConfigBody(generated: unknown, overlay: Record<string, unknown> | undefined): string {
  if (!overlay) return JSON.stringify(generated, null, 2);
  const base = (generated ?? {}) as Record<string, unknown>;
  const remotes = { ...(base.remotes as object), ...(overlay.remotes as object) };
  return JSON.stringify({ ...base, ...overlay, remotes }, null, 2);
}

/**
 * Reads RUNTIME_CONFIG_FILE per request. A file that does not parse (a stray comma) is refused
 * with the reason in the log, and its last content that did parse keeps serving (none yet: the
 * generated config alone), so one typo never takes the whole dashboard down.
 */
function overlayReader(file: string | undefined, log: (line: string) => void) {
  let lastGood: Record<string, unknown> | undefined;
  let lastError = '';
  return (): Record<string, unknown> | undefined => {
    // no file (yet, or removed on purpose): the generated config; it may be created at any time
    if (!file || !existsSync(file)) return undefined;
    try {
      const overlay = JSON.parse(readFileSync(file, 'utf8')) as unknown;
      if (!overlay || typeof overlay !== 'object' || Array.isArray(overlay)) throw new Error('it is not a JSON object');
      lastGood = overlay as Record<string, unknown>;
      lastError = '';
      return lastGood;
    } catch (err) {
      const error = `RUNTIME_CONFIG_FILE ${file} cannot be used: ${(err as Error).message}; serving ${lastGood ? 'its last good content' : 'the generated config without it'}`;
      if (error !== lastError) log(`[sites] ${error}`);
      lastError = error;
      return lastGood;
    }
  };
}

export async function startStaticSites(opts: {
  sites: SiteSpec[];
  host: string;
  runtimeConfig: () => unknown | Promise<unknown>;
  /** RUNTIME_CONFIG_FILE: a JSON file laid over the generated runtime config, re-read per request. */
  runtimeConfigFile?: string;
}): Promise<RunningSites> {
  const servers: http.Server[] = [];
  const ports: Record<string, number> = {};
  const readOverlay = overlayReader(opts.runtimeConfigFile, (line) => console.error(line));
  for (const site of opts.sites) {
    const isShell = site.name === 'shell';
    const makeHandler = (dir = site.dir, single = true) =>
      sirv(dir, {
        single, // SPA fallback to index.html (deep links; standalone remotes); none in a release folder
        etag: true,
        // x.br / x.gz made at build time (shared-kit/rsbuild-precompress.ts), sent with
        // Content-Encoding, the original's Content-Type and Vary: Accept-Encoding; identity otherwise.
        brotli: true,
        gzip: true,
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
    // a release folder appears whole (renamed into place) and never changes: one handler per id
    const releases = new Map<string, ReturnType<typeof sirv>>();
    const serveRelease = (id: string) => {
      if (!site.releasesDir || !RELEASE_ID.test(id)) return undefined;
      const dir = path.join(site.releasesDir, id);
      if (!releases.has(id)) {
        if (!existsSync(dir)) return undefined;
        releases.set(id, makeHandler(dir, false));
      }
      if (!existsSync(dir)) releases.delete(id); // pruned
      return releases.get(id);
    };
    const server = http.createServer(async (req, res) => {
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
          body = runtimeConfigBody(await opts.runtimeConfig(), readOverlay());
        } catch (err) {
          const error = `the runtime config cannot be made: ${(err as Error).message}`;
          console.error(`[sites] ${error}`);
          res.writeHead(500, headers);
          res.end(JSON.stringify({ error }));
          return;
        }
        res.writeHead(200, headers);
        res.end(body);
        return;
      }
      const release = /^\/releases\/([^/]+)\//.exec(url.pathname);
      if (release && site.releasesDir) {
        const handle = serveRelease(release[1]);
        req.url = `${url.pathname.slice(release[0].length - 1)}${url.search}`;
        req.headers['accept-encoding'] = negotiableEncodings(req.headers['accept-encoding'], req.headers.range !== undefined);
        res.setHeader('vary', 'Accept-Encoding');
        const missing = () => {
          res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'access-control-allow-origin': '*' });
          res.end('Not found\n');
        };
        if (!handle) return missing();
        return handle(req, res, missing);
      }
      const handle = serveDir();
      if (!handle) return notBuilt(res, site.name);
      req.headers['accept-encoding'] = negotiableEncodings(req.headers['accept-encoding'], req.headers.range !== undefined);
      // set before sirv runs: its 304 answers would go out without it
      res.setHeader('vary', 'Accept-Encoding');
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
