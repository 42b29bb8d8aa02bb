// Cold-load benchmark of the composed dashboard (issue 3, "Measurement"): starts the platform
// as `npm start` does (the e2e global setup, e2e ports), signs a user in, opens
// /dashboard/tools/midjourney in a fresh Chromium profile a few times and prints JSON:
// gzip JS bytes until the remote's content renders, the floor of the same build (react,
// react-dom, router, Chakra + emotion, supabase-js: what any React + Chakra + Supabase app
// ships), time to the shell frame and time to remote content. Usage: pnpm --filter @aim/e2e bench
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import globalSetup from '../support/global-setup.ts';
import { CHROMIUM_LAUNCH, SHELL_URL } from '../support/platform.ts';
import { createUser, signIn } from '../support/users.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const RUNS = Number(process.env.RUNS ?? 3);
const gz = (buf: Buffer) => gzipSync(buf, { level: 9 }).length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** gzip bytes of the chunks the shell's build uses for the floor libraries (from its mf-manifest.json). */
function floorBytes() {
  const dist = path.join(root, 'shell', 'dist');
  const manifest = JSON.parse(readFileSync(path.join(dist, 'mf-manifest.json'), 'utf8')) as {
    shared: { name: string; assets: { js: { sync: string[] } } }[];
  };
  const libs = [
    'react',
    'react/jsx-runtime',
    'react-dom',
    'react-dom/client',
    'react-router',
    'react-router/dom',
    'react-router-dom',
    '@chakra-ui/react',
    '@emotion/react',
  ];
  const files = new Set(manifest.shared.filter((s) => libs.includes(s.name)).flatMap((s) => s.assets.js.sync));
  // supabase-js is bundled inside shared-kit's supabase module: count the chunk that holds it
  const kit = manifest.shared.find((s) => s.name === '@aim/shared-kit/supabase');
  const supabaseChunk = kit?.assets.js.sync.find((f) => readFileSync(path.join(dist, f), 'utf8').includes('supabase-js/'));
  if (supabaseChunk) files.add(supabaseChunk);
  const bytes = [...files].reduce((sum, f) => sum + gz(readFileSync(path.join(dist, f))), 0);
  return { gzipBytes: bytes, chunks: files.size, libraries: [...libs, '@supabase/supabase-js'] };
}

async function main() {
  const teardown = await globalSetup();
  try {
    const user = await createUser('bench', { onboarded: true });
    const browser = await chromium.launch(CHROMIUM_LAUNCH);
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      const context = await browser.newContext(); // a fresh profile: cold cache every run
      await signIn(context, user);
      const page = await context.newPage();
      const js: { url: string; gzip: number; at: number }[] = [];
      const t0 = Date.now();
      page.on('response', async (res) => {
        if (!/\.js(\?|$)/.test(res.url())) return;
        const body = await res.body().catch(() => undefined);
        if (body) js.push({ url: res.url(), gzip: gz(body), at: Date.now() - t0 });
      });
      await page.goto(`${SHELL_URL}/dashboard/tools/midjourney`);
      await page.getByTestId('sidebar').waitFor();
      const frameMs = Date.now() - t0;
      await page.getByTestId('screen-midjourney').waitFor();
      const remoteMs = Date.now() - t0;
      await page.waitForLoadState('networkidle');
      const before = js.filter((r) => r.at <= remoteMs);
      runs.push({
        shellFrameMs: frameMs,
        remoteContentMs: remoteMs,
        jsGzipBytesToRemoteContent: before.reduce((s, r) => s + r.gzip, 0),
        jsRequests: before.length,
        fromShellOrigin: before.filter((r) => r.url.startsWith(SHELL_URL)).reduce((s, r) => s + r.gzip, 0),
      });
      await context.close();
    }
    await browser.close();
    const floor = floorBytes();
    const bytes = median(runs.map((r) => r.jsGzipBytesToRemoteContent));
    console.log(
      JSON.stringify(
        {
          bench: 'dashboard-cold-load',
          route: '/dashboard/tools/midjourney',
          at: new Date().toISOString(),
          runs,
          median: {
            shellFrameMs: median(runs.map((r) => r.shellFrameMs)),
            remoteContentMs: median(runs.map((r) => r.remoteContentMs)),
            jsGzipBytesToRemoteContent: bytes,
          },
          floor,
          overFloorBytes: bytes - floor.gzipBytes,
          note: 'localhost, no throttling; gzip -9 of each JS response body; floor = the same build’s chunks of the listed libraries',
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
