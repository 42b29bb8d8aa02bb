// Cold-load benchmark of the composed dashboard (issue 3 "Measurement", issue 12 targets).
// Without BASE_URL it starts the platform as `npm start` does (the e2e global setup, e2e
// ports); with BASE_URL (e.g. `BASE_URL=http://localhost:3000 pnpm --filter @aim/e2e bench`) it
// measures an already running platform, taking its Supabase and API URLs from
// /runtime-config.json. It signs a fresh user in, opens /dashboard/tools/midjourney in a fresh
// Chromium profile RUNS times and prints JSON (TRACE=1 adds every resource's start and end).
//
// Times are the page's own: an init script (installed before any page script) records, with
// performance.now() (zero = the navigation's start), when the shell frame (`sidebar`) and the
// remote's content (`screen-midjourney`) first appear in the DOM, and when each resource's
// response ended (Resource Timing). Bytes: EVERY JavaScript response the browser received
// before the remote's content rendered, each body gzip -9 sized (the platform serves them
// uncompressed on localhost). The floor: the same build's chunks of react, react-dom, router,
// Chakra + emotion and the Supabase client, found by their content (license banners, package
// names), not only by mf-manifest.json (which misses chunks these libraries share).
import { gzipSync } from 'node:zlib';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext } from '@playwright/test';
import { createClient } from '@supabase/supabase-js';
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import WebSocket from 'ws';
import globalSetup from '../support/global-setup.ts';
import { CHROMIUM_LAUNCH, SHELL_URL } from '../support/platform.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUNS = Number(process.env.RUNS ?? 3);
const ROUTE = '/dashboard/tools/midjourney';
const FRAME_TESTID = 'sidebar';
const REMOTE_TESTID = 'screen-midjourney';
const gz = (buf: Buffer) => gzipSync(buf, { level: 9 }).length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round3 = (x: number) => Math.round(x * 1000) / 1000;

type Config = { supabaseUrl: string; supabaseAnonKey: string; apiBaseUrl: string };
type Session = Record<string, unknown> & { user: { id: string } };

/** A new, onboarded user made through the platform's public doors (captcha, magic-link code). */
async function createBenchUser(cfg: Config): Promise<Session> {
  const client = createClient(cfg.supabaseUrl, cfg.supabaseAnonKey, {
    auth: { flowType: 'implicit', persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  });
  const challenge = (await (await fetch(`${cfg.supabaseUrl}/auth/v1/captcha/challenge`)).json()) as Challenge;
  const solution = await solveChallenge({ challenge, deriveKey });
  const captchaToken = Buffer.from(JSON.stringify({ challenge, solution })).toString('base64');
  const email = `bench.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}@example.com`;
  const { error: otpError } = await client.auth.signInWithOtp({ email, options: { captchaToken, shouldCreateUser: true } });
  if (otpError) throw new Error(`POST /auth/v1/otp: ${otpError.message}`);
  let otp: string | undefined;
  for (let i = 0; i < 60 && !otp; i++) {
    const res = await fetch(`${cfg.supabaseUrl}/_dev/mailbox.json?to=${encodeURIComponent(email)}`);
    otp = ((await res.json()) as { messages: { otp?: string }[] }).messages[0]?.otp;
    if (!otp) await new Promise((r) => setTimeout(r, 150));
  }
  if (!otp) throw new Error(`no magic-link code for ${email}`);
  const { data, error } = await client.auth.verifyOtp({ email, token: otp, type: 'email' });
  if (error || !data.session) throw new Error(`POST /auth/v1/verify: ${error?.message ?? 'no session'}`);
  const { data: row, error: rowError } = await createClient(cfg.supabaseUrl, cfg.supabaseAnonKey, {
    global: { headers: { Authorization: `Bearer ${data.session.access_token}` } },
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    realtime: { transport: WebSocket as never },
  })
    .from('mdusers')
    .select('api_key')
    .single();
  if (rowError) throw new Error(`GET /rest/v1/mdusers: ${rowError.message}`);
  const res = await fetch(`${cfg.apiBaseUrl}/auth/update-onboarding-status`, { method: 'POST', headers: { authorization: row.api_key } });
  if (!res.ok) throw new Error(`POST /auth/update-onboarding-status → HTTP ${res.status}`);
  return data.session as unknown as Session;
}

/** Stores the session where the dashboard's supabase-js keeps it, before the app's first start. */
async function seedSession(context: BrowserContext, shellUrl: string, supabaseUrl: string, session: Session) {
  const key = `sb-${new URL(supabaseUrl).hostname.split('.')[0]}-auth-token`;
  await context.addInitScript(
    ([origin, k, v]) => {
      if (location.origin === origin) localStorage.setItem(k, v);
    },
    [new URL(shellUrl).origin, key, JSON.stringify(session)] as const,
  );
}

/**
 * In-page marks: when each test id first appears, measured from the navigation's start. A
 * string, not a function: tsx would wrap the function's inner names in its `__name` helper,
 * which does not exist in the page.
 */
const marksScript = (ids: string[]) => `(() => {
  const ids = ${JSON.stringify(ids)};
  const seen = (window.__benchMarks = {});
  performance.setResourceTimingBufferSize(10000);
  const observer = new MutationObserver(() => {
    for (const id of ids)
      if (seen[id] === undefined && document.querySelector('[data-testid="' + id + '"]')) seen[id] = performance.now();
    if (ids.every((id) => seen[id] !== undefined)) observer.disconnect();
  });
  observer.observe(document, { childList: true, subtree: true });
})();`;

/** Chunk text markers of the floor libraries (in the chunk or its .LICENSE.txt). */
const FLOOR_MARKERS: [string, RegExp][] = [
  ['react', /react\.production|react-jsx-runtime\.production/],
  ['react-dom', /react-dom(-client)?\.production|scheduler\.production/],
  ['react-router', /react-router v\d/],
  ['@chakra-ui/react', /@chakra-ui|chakra-|createSystem|defineRecipe/],
  ['@emotion/react', /@emotion|react-is\.production|emotion-/],
  ['@supabase/*', /GoTrueClient|PostgrestClient|RealtimeClient|@supabase\//],
];

/** gzip bytes of the shell build's chunks that hold the floor libraries. */
function floorBytes() {
  const dist = path.join(root, 'shell', 'dist');
  const manifest = JSON.parse(readFileSync(path.join(dist, 'mf-manifest.json'), 'utf8')) as {
    shared: { name: string; assets: { js: { sync: string[] } } }[];
  };
  const libs = ['react', 'react-dom', 'react-router', 'react-router-dom', '@chakra-ui/react', '@emotion/react'];
  const isLib = (name: string) => libs.some((l) => name === l || name.startsWith(`${l}/`));
  const files = new Set(manifest.shared.filter((s) => isLib(s.name)).flatMap((s) => s.assets.js.sync));
  const jsDir = path.join(dist, 'static', 'js');
  for (const rel of [...readdirSync(jsDir).map((f) => f), ...readdirSync(path.join(jsDir, 'async')).map((f) => `async/${f}`)]) {
    if (!rel.endsWith('.js') || rel.startsWith('index.')) continue; // the entry is the MF runtime + app, not a library
    const file = path.join(jsDir, rel);
    const text = readFileSync(file, 'utf8') + (existsSync(`${file}.LICENSE.txt`) ? readFileSync(`${file}.LICENSE.txt`, 'utf8') : '');
    if (FLOOR_MARKERS.some(([, re]) => re.test(text))) files.add(`static/js/${rel}`);
  }
  const bytes = [...files].reduce((sum, f) => sum + gz(readFileSync(path.join(dist, f))), 0);
  return { gzipBytes: bytes, chunks: files.size, libraries: [...libs, ...FLOOR_MARKERS.map(([l]) => l).filter((l) => !libs.includes(l))] };
}

async function main() {
  const baseUrl = (process.env.BASE_URL ?? '').replace(/\/$/, '');
  const teardown = baseUrl ? async () => {} : await globalSetup();
  const shellUrl = baseUrl || SHELL_URL;
  try {
    const cfg = (await (await fetch(`${shellUrl}/runtime-config.json`)).json()) as Config;
    const session = await createBenchUser(cfg);
    const browser = await chromium.launch(CHROMIUM_LAUNCH);
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext(); // a fresh profile: cold cache every run
      await seedSession(context, shellUrl, cfg.supabaseUrl, session);
      await context.addInitScript({ content: marksScript([FRAME_TESTID, REMOTE_TESTID]) });
      const page = await context.newPage();
      const bodies: Promise<{ url: string; gzip: number; raw: number } | null>[] = [];
      page.on('response', (res) => {
        const type = res.headers()['content-type'] ?? '';
        if (!/\.m?js(\?|$)/.test(res.url()) && !/javascript/.test(type)) return;
        bodies.push(
          res
            .body()
            .then((b) => ({ url: res.url(), gzip: gz(b), raw: b.length }))
            .catch(() => null),
        );
      });
      const t0 = Date.now();
      await page.goto(`${shellUrl}${ROUTE}`);
      await page.getByTestId(REMOTE_TESTID).waitFor();
      const wallMs = Date.now() - t0;
      await page.waitForLoadState('networkidle');
      const timeline = await page.evaluate(() => ({
        marks: (window as unknown as { __benchMarks: Record<string, number> }).__benchMarks,
        resources: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => ({
          url: e.name,
          start: e.startTime,
          end: e.responseEnd,
        })),
        pageMarks: performance.getEntriesByType('mark').map((m) => ({ name: m.name, at: Math.round(m.startTime) })),
        nav: performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined,
      }));
      const frameMs = timeline.marks[FRAME_TESTID];
      const remoteMs = timeline.marks[REMOTE_TESTID];
      const ended = new Map<string, number>();
      for (const r of timeline.resources) if (!ended.has(r.url) || r.end < ended.get(r.url)!) ended.set(r.url, r.end);
      const js = (await Promise.all(bodies)).filter((b) => b !== null);
      const before = js.filter((r) => (ended.get(r.url) ?? Number.POSITIVE_INFINITY) <= remoteMs);
      const manifestAt = timeline.resources.find((r) => r.url.endsWith('/mf-manifest.json') && !r.url.startsWith(shellUrl));
      runs.push({
        shellFrameMs: Math.round(frameMs),
        remoteContentMs: Math.round(remoteMs),
        jsGzipBytesToRemoteContent: before.reduce((s, r) => s + r.gzip, 0),
        jsRequests: before.length,
        fromShellOrigin: before.filter((r) => r.url.startsWith(shellUrl)).reduce((s, r) => s + r.gzip, 0),
        remoteToFrameRatio: round3(remoteMs / frameMs),
        jsRawBytesToRemoteContent: before.reduce((s, r) => s + r.raw, 0),
        jsGzipBytesTotal: js.reduce((s, r) => s + r.gzip, 0),
        jsRequestsTotal: js.length,
        firstRemoteManifestEndMs: manifestAt ? Math.round(manifestAt.end) : null,
        runtimeConfigEndMs: Math.round(timeline.resources.find((r) => r.url.endsWith('/runtime-config.json'))?.end ?? -1),
        domContentLoadedMs: Math.round(timeline.nav?.domContentLoadedEventEnd ?? -1),
        playwrightWallMs: wallMs,
        pageMarks: timeline.pageMarks,
        ...(process.env.TRACE === '1'
          ? { timeline: timeline.resources.map((r) => ({ url: r.url.replace(shellUrl, ''), start: Math.round(r.start), end: Math.round(r.end) })) }
          : {}),
        jsToRemoteContent: before.map((r) => ({ url: r.url.replace(/^https?:\/\/[^/]+/, (o) => (o === shellUrl ? '' : o)), gzip: r.gzip })),
      });
      await context.close();
    }
    await browser.close();
    const floor = floorBytes();
    const bytes = median(runs.map((r) => r.jsGzipBytesToRemoteContent));
    const frame = median(runs.map((r) => r.shellFrameMs));
    const remote = median(runs.map((r) => r.remoteContentMs));
    console.log(
      JSON.stringify(
        {
          bench: 'dashboard-cold-load',
          route: ROUTE,
          baseUrl: shellUrl,
          at: new Date().toISOString(),
          runs,
          median: {
            shellFrameMs: frame,
            remoteContentMs: remote,
            jsGzipBytesToRemoteContent: bytes,
            jsGzipKiBToRemoteContent: Math.round((bytes / 1024) * 10) / 10,
            jsRequests: median(runs.map((r) => r.jsRequests)),
            remoteToFrameRatio: median(runs.map((r) => r.remoteToFrameRatio)),
          },
          targets: { jsGzipKiBToRemoteContent: 300, remoteToFrameRatio: 1.1 },
          floor,
          overFloorBytes: bytes - floor.gzipBytes,
          note: 'localhost, no throttling; times are in-page (performance.now() from navigation start: MutationObserver for the test ids, Resource Timing responseEnd for each JS); bytes are gzip -9 of every JS response body that ended before the remote content appeared; floor = the same build’s chunks of the listed libraries, found by content',
        },
        null,
        2,
      ),
    );
  } finally {
    await teardown();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
