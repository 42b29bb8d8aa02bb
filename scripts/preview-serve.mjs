#!/usr/bin/env node
// Serves a remote's preview folder (scripts/preview-build.mjs) on a port, the way a CDN origin
// would for the shell (CORS on everything, the manifest never cached, hashed files cached for
// good, the build's precompressed .br/.gz copies sent to clients that accept them), and prints the link that opens a running shell with this preview swapped in
// (`?mf-preview=<name>=<manifest URL>`, kept for the tab; the badge's Reset ends it).
//
//   pnpm --filter @aim/mfe-tools preview:serve            (or `pnpm preview:serve` inside mfe-tools/)
//   node scripts/preview-serve.mjs mfe-tools --port 4101 --shell http://localhost:3000 --dir /tmp/x
//   (default port: the shell's + 1101 + the remote's index; a port the Fetch standard blocks is refused)
//
// The shell only accepts origins on its preview allow-list (PREVIEW_ALLOW_LIST; by default any
// port on localhost and 127.0.0.1). Docs: docs/operations/previews-and-deploys.md.
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BAD_PORTS, portRefusal, urlPort } from './bad-ports.mjs';
import { REMOTE_FOLDERS, mfName, parseArgs, repoRoot, resolveRemoteFolder } from './preview-build.mjs';

/** Where each remote's main screen lives in the shell: the page the printed link opens. */
export const REMOTE_PAGES = {
  mfe_tools: '/dashboard/tools/midjourney',
  mfe_assets: '/dashboard/assets/images',
  mfe_billing: '/dashboard/billing/subscription',
  mfe_developer: '/dashboard/api-keys',
  mfe_onboarding: '/welcome',
};

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8',
};

/** The CDN rules of docs/operations/previews-and-deploys.md, for one file. */
export function cacheControl(pathname) {
  if (pathname.endsWith('mf-manifest.json') || pathname.endsWith('.html') || pathname === '/') return 'no-cache';
  if (/\.[0-9a-f]{8,}\./.test(pathname)) return 'public, max-age=31536000, immutable';
  return 'no-cache';
}

/**
 * Which precompressed copy of a file to send (docs/operations/previews-and-deploys.md, "CDN
 * layout"): `.br` when Accept-Encoding allows br, else `.gz` for gzip, when the build left one;
 * none for a Range request (its offsets are of the identity file).
 */
function pickPrecompressed(file, acceptEncoding, hasRange) {
  if (hasRange || !acceptEncoding) return null;
  const allowed = new Set();
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)).find(Boolean);
    if (name && !(q && Number(q[1]) === 0)) allowed.add(name.trim());
  }
  for (const [coding, ext] of [
    ['br', '.br'],
    ['gzip', '.gz'],
  ]) {
    if (allowed.has(coding) && existsSync(file + ext)) return { coding, file: file + ext };
  }
  return null;
}

/**
 * The default preview port of a remote for the shell at `shellUrl`: the shell's port + 1101 + the
 * remote's index (4101–4105 for a shell on :3000, 4201–4205 for one on :3100), so previews for two
 * platforms on shifted ports never meet, nor the launcher's own remote ports (shell + 1…5) or the
 * API's (8080). Moved by one when it lands on a port the Fetch standard blocks.
 */
export function defaultPreviewPort(shellUrl, folder) {
  let port = urlPort(shellUrl) + 1101 + Math.max(0, REMOTE_FOLDERS.indexOf(folder));
  while (BAD_PORTS.has(port)) port += 10;
  return port > 65535 ? 0 : port;
}

/** The shell URL that swaps `remote` for the manifest at `manifestUrl` in this tab. */
export function previewLink(shellUrl, remote, manifestUrl) {
  const url = new URL(REMOTE_PAGES[remote] ?? '/dashboard', shellUrl);
  url.searchParams.set('mf-preview', `${remote}=${manifestUrl}`);
  return url.toString();
}

/** A static server for one folder: CORS for the shell's cross-origin fetches, no directory escapes. */
export async function servePreview({ dir, port, host = '127.0.0.1' }) {
  const root = path.resolve(dir);
  const server = http.createServer((req, res) => {
    const cors = { 'access-control-allow-origin': '*' };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, { ...cors, 'access-control-allow-methods': 'GET, HEAD, OPTIONS', 'access-control-allow-headers': '*' }).end();
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...cors, allow: 'GET, HEAD, OPTIONS' }).end();
      return;
    }
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      res.writeHead(400, cors).end();
      return;
    }
    const file = path.join(root, pathname === '/' ? 'index.html' : pathname);
    if (!file.startsWith(root + path.sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { ...cors, 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    const encoded = pickPrecompressed(file, req.headers['accept-encoding'], req.headers.range !== undefined);
    const sent = encoded?.file ?? file;
    res.writeHead(200, {
      ...cors,
      'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
      'content-length': statSync(sent).size,
      'cache-control': cacheControl(pathname),
      vary: 'Accept-Encoding',
      ...(encoded ? { 'content-encoding': encoded.coding } : {}),
    });
    if (req.method === 'HEAD') res.end();
    else createReadStream(sent).pipe(res);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const actual = server.address().port;
  return {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${actual}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function main() {
  const { positional, flags } = parseArgs(process.argv.slice(2));
  const folder = resolveRemoteFolder(positional[0]);
  const remote = mfName(folder);
  const dir = path.resolve(flags.dir ?? path.join(repoRoot, folder, 'preview', 'dist'));
  if (!existsSync(path.join(dir, 'mf-manifest.json'))) {
    throw new Error(`${dir} has no mf-manifest.json: build the preview first (node scripts/preview-build.mjs ${folder})`);
  }
  const stamp = JSON.parse(readFileSync(path.join(dir, 'mf-manifest.json'), 'utf8')).metaData?.aim;
  const shellUrl = flags.shell ?? process.env.SHELL_URL ?? 'http://localhost:3000';
  const port = Number(flags.port ?? process.env.PREVIEW_PORT ?? defaultPreviewPort(shellUrl, folder));
  const refusal = portRefusal(port, 'preview port');
  if (refusal) throw new Error(refusal);
  const served = await servePreview({ dir, port, host: flags.host ?? '127.0.0.1' });
  const manifestUrl = `${served.origin}/mf-manifest.json`;
  // Does a shell answer there, and does it know this remote? (Only a hint: it never blocks.)
  let shellNote = '';
  try {
    const cfg = await (await fetch(new URL('/runtime-config.json', shellUrl), { signal: AbortSignal.timeout(2000) })).json();
    if (!cfg?.remotes?.[remote]) shellNote = `  (the shell at ${shellUrl} does not list ${remote} in its runtime config)`;
  } catch {
    shellNote = `  (no shell answers at ${shellUrl} yet: start one with \`npm start\`, or pass --shell <url>)`;
  }
  console.log(
    [
      '',
      `  Preview of ${remote}${stamp ? ` ${stamp.version} (commit ${stamp.commit}, shared-kit contract ${stamp.contract})` : ' (unstamped build)'}`,
      `  Manifest         ${manifestUrl}`,
      `  Open             ${previewLink(shellUrl, remote, manifestUrl)}`,
      ...(shellNote ? [shellNote] : []),
      "  The override lasts for that tab; the Preview badge's Reset ends it. Ctrl+C stops this server.",
      '',
    ].join('\n'),
  );
  const stop = () => served.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`preview-serve: ${err.message}`);
    process.exit(1);
  });
}
