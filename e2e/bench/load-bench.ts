// Cold-load benchmark of the composed dashboard (issue 3 "Measurement", issues 12 and 24 targets).
// Without BASE_URL it starts the platform as `npm start` does (the e2e global setup, e2e
// ports); with BASE_URL (e.g. `BASE_URL=http://localhost:3000 pnpm --filter @aim/e2e bench`) it
// measures an already running platform, taking its Supabase and API URLs from
// /runtime-config.json. It signs fresh users in and opens, in a fresh Chromium profile, RUNS times
// each: the Midjourney tool (the target), /auth signed out, and one screen of each other remote
// (SCREENS below; ONLY=midjourney,auth limits them). It prints a table, then JSON (TRACE=1 adds
// every resource's start and end).
//
// Times are the page's own: an init script (installed before any page script) records, with
// performance.now() (zero = the navigation's start), when the shell frame (`sidebar`) and the
// screen's content first exist in the DOM AND are visible (checked on every DOM change and every
// animation frame), and when each resource started and ended (Resource Timing).
// Bytes, counted honestly (issue 24): EVERY JavaScript request STARTED before the content was
// visible, whether it ended before or after (a deferred chunk fetched meanwhile competes for the
// same connection, so it counts). Three sizes each: gzip -9 of the body (comparable across
// machines and with earlier figures), brotli 11 of the body (what an HTTPS client gets from the
// precompressed .br files), and the bytes on the wire as Chromium received them (CDP
// Network.loadingFinished encodedDataLength: headers plus the body as encoded; Chromium sends
// `br` only to HTTPS origins, so on http://localhost that is the .gz file). The floor: the same
// build's chunks of react, react-dom, router, Chakra + emotion and the Supabase client, found by
// their content (license banners, package names), not only by mf-manifest.json (which misses
// chunks these libraries share).
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext } from '@playwright/test';
import { createClient } from '@supabase/supabase-js';
import { solveChallenge, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import WebSocket from 'ws';
import globalSetup from '../support/global-setup.ts';
import { CHROMIUM_LAUNCH, SHELL_URL } from '../support/platform.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUNS = Number(process.env.RUNS ?? 3);
const FRAME_TESTID = 'sidebar';
const KIB = 1024;
const gz = (buf: Buffer) => gzipSync(buf, { level: 9 }).length;
const br = (buf: Buffer) => brotliCompressSync(buf, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round3 = (x: number) => Math.round(x * 1000) / 1000;
const kib = (bytes: number) => Math.round((bytes / KIB) * 10) / 10;

/** The screens measured: the route, the selector of its content, and who opens it. */
interface Screen {
  name: string;
  route: string;
  content: string;
  /** signed-in: an onboarded user; new-user: signed in, not onboarded yet; signed-out: nobody. */
  as: 'signed-in' | 'new-user' | 'signed-out';
  /** Budgets (KiB) this screen must meet, when it has one. */
  targets?: { jsGzipKiB: number; jsWireKiB: number };
}
const testid = (id: string) => `[data-testid="${id}"]`;
const SCREENS: Screen[] = [
  {
    name: 'midjourney',
    route: '/dashboard/tools/midjourney',
    content: testid('screen-midjourney'),
    as: 'signed-in',
    targets: { jsGzipKiB: 300, jsWireKiB: 300 },
  },
  { name: 'auth', route: '/auth', content: 'input[name="email"]', as: 'signed-out' },
  { name: 'assets: images', route: '/dashboard/assets/images', content: testid('screen-images'), as: 'signed-in' },
  { name: 'billing: subscription', route: '/dashboard/billing/subscription', content: testid('screen-subscription'), as: 'signed-in' },
  { name: 'developer: api keys', route: '/dashboard/api-keys', content: testid('screen-api-keys'), as: 'signed-in' },
  { name: 'onboarding: welcome', route: '/welcome', content: testid('screen-welcome'), as: 'new-user' },
];

type Config = { supabaseUrl: string; supabaseAnonKey: string; apiBaseUrl: string };
type Session = Record<string, unknown> & { user: { id: string } };

/** A new, onboarded user made through the platform's public doors (captcha, magic-link code). */
async function createBenchUser(cfg: Config, onboard = true): Promise<Session> {
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
  if (!onboard) return data.session as unknown as Session;
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
 * In-page marks: when each selector first matches a visible element, measured from the
 * navigation's start (checked on each DOM change and each animation frame, so content that is in
 * the DOM but hidden does not count until it shows). A string, not a function: tsx would wrap
 * the function's inner names in its `__name` helper, which does not exist in the page.
 */
const marksScript = (selectors: string[]) => `(() => {
  const selectors = ${JSON.stringify(selectors)};
  const seen = (window.__benchMarks = {});
  performance.setResourceTimingBufferSize(10000);
  const visible = (el) => (typeof el.checkVisibility === 'function' ? el.checkVisibility({ opacityProperty: true, visibilityProperty: true }) : true);
  const check = () => {
    for (const s of selectors) {
      if (seen[s] !== undefined) continue;
      const el = document.querySelector(s);
      if (el && visible(el)) seen[s] = performance.now();
    }
    return selectors.every((s) => seen[s] !== undefined);
  };
  const observer = new MutationObserver(() => check() && observer.disconnect());
  observer.observe(document, { childList: true, subtree: true, attributes: true });
  const frame = () => (check() ? observer.disconnect() : requestAnimationFrame(frame));
  requestAnimationFrame(frame);
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

type Js = { url: string; start: number; end: number; gzip: number; br: number; raw: number; wire: number; encoding: string };

/** One cold load of `screen` in a fresh profile: when the content showed and every JS request. */
async function measure(browser: Browser, shellUrl: string, cfg: Config, screen: Screen, session: Session | null) {
  const context = await browser.newContext(); // a fresh profile: cold cache every run
  if (session) await seedSession(context, shellUrl, cfg.supabaseUrl, session);
  const selectors = screen.as === 'signed-in' ? [testid(FRAME_TESTID), screen.content] : [screen.content];
  await context.addInitScript({ content: marksScript(selectors) });
  const page = await context.newPage();
  // bytes on the wire per request, from the browser's network stack (any origin, no
  // Timing-Allow-Origin needed): headers + body as encoded
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const wire = new Map<string, { url: string; bytes: number; encoding: string }>();
  cdp.on('Network.responseReceived', (e) => {
    const encoding = Object.entries(e.response.headers).find(([k]) => k.toLowerCase() === 'content-encoding')?.[1] ?? 'identity';
    wire.set(e.requestId, { url: e.response.url, bytes: 0, encoding: String(encoding) });
  });
  cdp.on('Network.loadingFinished', (e) => {
    const entry = wire.get(e.requestId);
    if (entry) entry.bytes = e.encodedDataLength;
  });
  const bodies: Promise<{ url: string; gzip: number; br: number; raw: number } | null>[] = [];
  page.on('response', (res) => {
    const type = res.headers()['content-type'] ?? '';
    if (!/\.m?js(\?|$)/.test(res.url()) && !/javascript/.test(type)) return;
    bodies.push(
      res
        .body()
        .then((b) => ({ url: res.url(), gzip: gz(b), br: br(b), raw: b.length }))
        .catch(() => null),
    );
  });
  const t0 = Date.now();
  await page.goto(`${shellUrl}${screen.route}`);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  await page
    .locator(screen.content)
    .first()
    .waitFor({ state: 'visible' })
    .catch(async (e: Error) => {
      const body = await page
        .locator('body')
        .textContent()
        .catch(() => null);
      const text = (body ?? '').replace(/\s+/g, ' ').slice(0, 400);
      await context.close();
      throw new Error(
        `${screen.name} (${screen.route}): ${screen.content} never showed: ${e.message.split('\n')[0]}\n  page: ${text}\n  errors: ${errors.join(' | ').slice(0, 800)}`,
      );
    });
  const wallMs = Date.now() - t0;
  await page.waitForFunction((n) => Object.keys((window as unknown as { __benchMarks: object }).__benchMarks).length >= n, selectors.length);
  await page.waitForLoadState('networkidle');
  const timeline = await page.evaluate(() => ({
    marks: (window as unknown as { __benchMarks: Record<string, number> }).__benchMarks,
    resources: (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => ({ url: e.name, start: e.startTime, end: e.responseEnd })),
    pageMarks: performance.getEntriesByType('mark').map((m) => ({ name: m.name, at: Math.round(m.startTime) })),
    nav: performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined,
  }));
  await context.close();
  const contentMs = timeline.marks[screen.content];
  const frameMs = timeline.marks[testid(FRAME_TESTID)];
  const timing = new Map<string, { start: number; end: number }>();
  for (const r of timeline.resources) if (!timing.has(r.url) || r.start < timing.get(r.url)!.start) timing.set(r.url, r);
  const wireByUrl = new Map<string, { bytes: number; encoding: string }>();
  for (const w of wire.values()) if (!wireByUrl.has(w.url)) wireByUrl.set(w.url, w);
  const js: Js[] = (await Promise.all(bodies))
    .filter((b) => b !== null)
    .map((b) => ({
      ...b,
      start: timing.get(b.url)?.start ?? Number.POSITIVE_INFINITY,
      end: timing.get(b.url)?.end ?? Number.POSITIVE_INFINITY,
      wire: wireByUrl.get(b.url)?.bytes ?? 0,
      encoding: wireByUrl.get(b.url)?.encoding ?? 'unknown',
    }));
  // fetched before the content was visible: requested before it (ended before or after)
  const counted = js.filter((r) => r.start < contentMs);
  const endedBefore = js.filter((r) => r.end <= contentMs);
  const sum = (rs: Js[], k: 'gzip' | 'br' | 'raw' | 'wire') => rs.reduce((s, r) => s + r[k], 0);
  // every response (HTML, CSS, JSON, fonts too); the document itself has no Resource Timing entry
  const startOf = (url: string) => timing.get(url)?.start ?? (url === `${shellUrl}${screen.route}` ? 0 : Number.POSITIVE_INFINITY);
  const allWireBefore = [...wire.values()].filter((w) => startOf(w.url) < contentMs).reduce((s, w) => s + w.bytes, 0);
  const short = (url: string) => url.replace(/^https?:\/\/[^/]+/, (o) => (o === shellUrl ? '' : o));
  return {
    contentMs: Math.round(contentMs),
    shellFrameMs: frameMs === undefined ? null : Math.round(frameMs),
    remoteToFrameRatio: frameMs === undefined ? null : round3(contentMs / frameMs),
    jsRequests: counted.length,
    jsGzipBytes: sum(counted, 'gzip'),
    jsBrotliBytes: sum(counted, 'br'),
    jsWireBytes: sum(counted, 'wire'),
    jsRawBytes: sum(counted, 'raw'),
    wireEncodings: [...new Set(counted.map((r) => r.encoding))],
    allWireBytesBeforeContent: allWireBefore,
    fromShellOrigin: counted.filter((r) => r.url.startsWith(shellUrl)).reduce((s, r) => s + r.gzip, 0),
    // the earlier rule (ended before the content): what the bench counted before issue 24
    endedBeforeContent: { jsRequests: endedBefore.length, jsGzipBytes: sum(endedBefore, 'gzip') },
    jsGzipBytesTotal: sum(js, 'gzip'),
    jsRequestsTotal: js.length,
    runtimeConfigEndMs: Math.round(timeline.resources.find((r) => r.url.endsWith('/runtime-config.json'))?.end ?? -1),
    domContentLoadedMs: Math.round(timeline.nav?.domContentLoadedEventEnd ?? -1),
    playwrightWallMs: wallMs,
    pageMarks: timeline.pageMarks,
    ...(process.env.TRACE === '1'
      ? { timeline: timeline.resources.map((r) => ({ url: short(r.url), start: Math.round(r.start), end: Math.round(r.end) })) }
      : {}),
    jsBeforeContent: counted.map((r) => ({ url: short(r.url), gzip: r.gzip, wire: r.wire, start: Math.round(r.start), end: Math.round(r.end) })),
  };
}

type Run = Awaited<ReturnType<typeof measure>>;

/** The medians of a screen's runs and whether its targets are met. */
function summarize(screen: Screen, runs: Run[]) {
  const m = (pick: (r: Run) => number) => median(runs.map(pick));
  const gzipKiB = kib(m((r) => r.jsGzipBytes));
  const wireKiB = kib(m((r) => r.jsWireBytes));
  return {
    screen: screen.name,
    route: screen.route,
    content: screen.content,
    contentMs: m((r) => r.contentMs),
    shellFrameMs: runs[0].shellFrameMs === null ? null : m((r) => r.shellFrameMs ?? 0),
    jsRequests: m((r) => r.jsRequests),
    jsGzipKiB: gzipKiB,
    jsBrotliKiB: kib(m((r) => r.jsBrotliBytes)),
    jsWireKiB: wireKiB,
    jsRawKiB: kib(m((r) => r.jsRawBytes)),
    wireEncodings: runs[0].wireEncodings,
    allWireKiBBeforeContent: kib(m((r) => r.allWireBytesBeforeContent)),
    // what weighs most among the JS fetched before the content (first run), to see what to cut
    largestBeforeContent: [...runs[0].jsBeforeContent].sort((a, b) => b.gzip - a.gzip).slice(0, 6),
    ...(screen.targets
      ? {
          targets: screen.targets,
          met: { jsGzipKiB: gzipKiB <= screen.targets.jsGzipKiB, jsWireKiB: wireKiB <= screen.targets.jsWireKiB },
        }
      : {}),
  };
}

function printTable(rows: ReturnType<typeof summarize>[]) {
  const head = ['screen', 'content ms', 'JS req', 'JS gzip-9 KiB', 'JS br-11 KiB', 'JS wire KiB', 'JS raw KiB', 'all wire KiB', 'target'];
  const lines = rows.map((r) => [
    r.screen,
    String(r.contentMs),
    String(r.jsRequests),
    String(r.jsGzipKiB),
    String(r.jsBrotliKiB),
    `${r.jsWireKiB} (${r.wireEncodings.join('+')})`,
    String(r.jsRawKiB),
    String(r.allWireKiBBeforeContent),
    r.met && r.targets
      ? `gzip ${r.met.jsGzipKiB ? 'MET' : 'MISSED'} (<= ${r.targets.jsGzipKiB}), wire ${r.met.jsWireKiB ? 'MET' : 'MISSED'} (<= ${r.targets.jsWireKiB})`
      : '-',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(fmt(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(fmt(l));
  console.log(
    'JS bytes: every JavaScript request started before the content was visible (median of the runs). wire = as Chromium received them (headers included).\n',
  );
}

async function main() {
  const baseUrl = (process.env.BASE_URL ?? '').replace(/\/$/, '');
  const only = process.env.ONLY?.split(',').map((s) => s.trim());
  const screens = SCREENS.filter((s) => !only || only.some((o) => s.name.startsWith(o)));
  const teardown = baseUrl ? async () => {} : await globalSetup();
  const shellUrl = baseUrl || SHELL_URL;
  try {
    const cfg = (await (await fetch(`${shellUrl}/runtime-config.json`)).json()) as Config;
    const browser = await chromium.launch(CHROMIUM_LAUNCH);
    const session = await createBenchUser(cfg);
    const results: { screen: Screen; runs: Run[] }[] = [];
    const failures: { screen: string; error: string }[] = [];
    for (const screen of screens) {
      const runs: Run[] = [];
      try {
        for (let i = 0; i < RUNS; i++) {
          // each /welcome run gets a user of its own (nothing here onboards it, the wizard would)
          const who = screen.as === 'signed-out' ? null : screen.as === 'new-user' ? await createBenchUser(cfg, false) : session;
          runs.push(await measure(browser, shellUrl, cfg, screen, who));
        }
        results.push({ screen, runs });
      } catch (e) {
        // one screen that does not show is reported, and the others are still measured
        failures.push({ screen: screen.name, error: (e as Error).message });
        console.error(`[bench] ${(e as Error).message}`);
      }
    }
    await browser.close();
    const summary = results.map(({ screen, runs }) => summarize(screen, runs));
    printTable(summary);
    for (const f of failures) console.log(`${f.screen}: NOT MEASURED (its content never showed; see the error above)`);
    const midjourney = results.find((r) => r.screen.name === 'midjourney');
    const floor = floorBytes();
    const mjBytes = midjourney ? median(midjourney.runs.map((r) => r.jsGzipBytes)) : null;
    console.log(
      JSON.stringify(
        {
          bench: 'dashboard-cold-load',
          baseUrl: shellUrl,
          at: new Date().toISOString(),
          runsPerScreen: RUNS,
          screens: summary,
          failures,
          ...(midjourney && mjBytes !== null
            ? {
                midjourney: {
                  route: midjourney.screen.route,
                  runs: midjourney.runs,
                  median: {
                    shellFrameMs: median(midjourney.runs.map((r) => r.shellFrameMs ?? 0)),
                    remoteContentMs: median(midjourney.runs.map((r) => r.contentMs)),
                    jsGzipBytesToRemoteContent: mjBytes,
                    jsGzipKiBToRemoteContent: kib(mjBytes),
                    jsWireKiBToRemoteContent: kib(median(midjourney.runs.map((r) => r.jsWireBytes))),
                    jsRequests: median(midjourney.runs.map((r) => r.jsRequests)),
                    remoteToFrameRatio: median(midjourney.runs.map((r) => r.remoteToFrameRatio ?? 0)),
                  },
                  targets: { jsGzipKiBToRemoteContent: 300, jsWireKiBToRemoteContent: 300, remoteToFrameRatio: 1.1 },
                  floor,
                  overFloorBytes: mjBytes - floor.gzipBytes,
                },
              }
            : {}),
          note: 'localhost, no throttling; times are in-page (performance.now() from navigation start; content = the selector first matched a visible element). JS bytes = every JavaScript request started before the content was visible: gzip -9 and brotli 11 of each body, and the bytes Chromium received (CDP encodedDataLength, headers included; Chromium asks for br on HTTPS only, so http://localhost gets the .gz files). floor = the same build’s chunks of the listed libraries, found by content',
        },
        null,
        2,
      ),
    );
    if (failures.length) process.exitCode = 1;
  } finally {
    await teardown();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
