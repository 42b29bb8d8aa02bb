// `npm test`: every suite of the workspace, in an order that fails fast and cheap first:
// type-checks and lint, then each package's vitest suite (unit, API, and database tests against both
// PGlite and a real PostgreSQL the suites start themselves), then the Playwright journeys in
// Chromium against the platform started as `npm start` starts it. Prints one closing line.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureInstall, root, run } from './ensure-install.mjs';
import { ensureSystemPackages } from './system-deps.mjs';
import { readPlaywrightReport, readVitestReport } from './test-report.mjs';

// Debian's chromium and postgresql, curl and python3 first: installed when this process may
// (root, passwordless sudo), else a stop with the exact command, before any suite runs
if (!ensureSystemPackages()) process.exit(1);
ensureInstall();

const packages = readdirSync(root)
  .filter((d) => existsSync(path.join(root, d, 'package.json')) && d !== 'node_modules')
  .map((d) => ({ dir: d, pkg: JSON.parse(readFileSync(path.join(root, d, 'package.json'), 'utf8')) }));
const withScript = (s) => packages.filter((p) => p.pkg.scripts?.[s]);
const out = mkdtempSync(path.join(tmpdir(), 'aim-test-'));
const results = [];
let passed = 0;
let failed = 0;
const failures = []; // one line per failed test, printed in the summary
const flaky = []; // tests that passed only on their retry (CI retries once)

function step(name, fn) {
  const t0 = Date.now();
  const code = fn();
  results.push({ name, ok: code === 0, s: ((Date.now() - t0) / 1000).toFixed(1) });
  return code === 0;
}

// 1. Types
for (const p of withScript('typecheck')) step(`typecheck ${p.dir}`, () => run('pnpm', ['--filter', p.pkg.name, 'typecheck']));

// 1a. The set-up scripts' own tests (node --test): which system packages get installed or asked for
{
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'scripts/system-deps.test.mjs', 'scripts/preview-scripts.test.mjs'], {
    cwd: root,
    encoding: 'utf8',
  });
  process.stdout.write(r.stdout ?? '');
  process.stderr.write(r.stderr ?? '');
  const count = (label) => Number((r.stdout ?? '').match(new RegExp(`^# ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
  passed += count('pass');
  failed += count('fail');
  for (const m of (r.stdout ?? '').matchAll(/^\s*not ok \d+ - (.+)$/gm)) failures.push(`scripts › ${m[1]}`);
  results.push({ name: 'node --test scripts/{system-deps,preview-scripts}.test.mjs', ok: r.status === 0, s: ((Date.now() - t0) / 1000).toFixed(1) });
}

// 1b. One formatter and linter for the whole repository (Biome), and knip for unused files,
// exports and dependencies
step('lint (biome check)', () => run('pnpm', ['exec', 'biome', 'check', '--error-on-warnings', '.']));
step('unused code (knip)', () => run('pnpm', ['exec', 'knip']));

// 2. Production builds of the front-ends: the shell's browser tests and the journeys load them
const frontEnds = ['shell', 'mfe-tools', 'mfe-assets', 'mfe-billing', 'mfe-developer', 'mfe-onboarding'].filter((d) => packages.some((p) => p.dir === d));
if (frontEnds.length) step('build front-ends', () => run('pnpm', ['-r', ...frontEnds.flatMap((d) => ['--filter', `./${d}`]), 'build']));

// 3. Unit, API and database suites (vitest), one package at a time (2 cores)
for (const p of withScript('test').filter((p) => p.dir !== 'e2e')) {
  const json = path.join(out, `${p.dir}.json`);
  step(`vitest ${p.dir}`, () =>
    run('pnpm', ['--filter', p.pkg.name, 'exec', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${json}`]),
  );
  if (existsSync(json)) {
    const r = readVitestReport(JSON.parse(readFileSync(json, 'utf8')), root);
    passed += r.passed;
    failed += r.failed;
    failures.push(...r.failures);
    flaky.push(...r.flaky);
  } else {
    failed += 1;
  }
}

// 4. Journeys in Chromium (the builds above are reused)
const e2e = packages.find((p) => p.dir === 'e2e' && p.pkg.scripts?.test);
if (e2e) {
  const json = path.join(out, 'e2e.json');
  step('e2e (Playwright, Chromium)', () =>
    run('pnpm', ['--filter', e2e.pkg.name, 'test'], { env: { ...process.env, SKIP_BUILD: '1', PLAYWRIGHT_JSON_OUTPUT_NAME: json } }),
  );
  if (existsSync(json)) {
    const r = readPlaywrightReport(JSON.parse(readFileSync(json, 'utf8')));
    passed += r.passed;
    failed += r.failed;
    failures.push(...r.failures);
    flaky.push(...r.flaky);
  } else {
    failed += 1;
  }
}

console.log('\nSummary');
for (const r of results) console.log(`  ${r.ok ? 'ok  ' : 'FAIL'} ${r.name} (${r.s} s)`);
if (flaky.length) {
  console.log('\nPassed on retry (flaky)');
  for (const f of flaky) console.log(`  ${f}`);
}
if (failures.length) {
  console.log('\nFailed tests');
  for (const f of failures) console.log(`  ${f}`);
}
const stepsFailed = results.filter((r) => !r.ok).length;
if (stepsFailed && !failed) failed = stepsFailed;
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(stepsFailed || failed ? 1 : 0);
