import { execFile } from 'node:child_process';
import { cpSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BrowserContext, expect, test } from '@playwright/test';
import { ARTIFACTS } from '../support/global-setup.ts';
import { expectMidjourney } from '../support/journeys.ts';
import { SHELL_URL, launcherEnv, remoteUrl } from '../support/platform.ts';
import { createUser, signIn } from '../support/users.ts';

// A team ships its remote with the release command (scripts/remote-release.mjs) onto the running
// platform: a really rebuilt remote, seen on every new load, rolled back, an incompatible build
// refused at deploy time, and a record broken by hand that only costs its own remote its updates.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OLD_TEXT = 'Pictures you make in the tools or with the API appear here.';
const NEW_TEXT = `Fresh pictures land here (release ${process.pid}).`;

function dataEnv() {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error('E2E_DATA_DIR is not set: run through the global setup');
  return { ...process.env, ...launcherEnv(dataDir), PUBLIC_HOST: 'localhost' };
}

/** The release command, as a team runs it on the launcher's machine. */
function release(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/remote-release.mjs', ...args], { cwd: root, env: dataEnv(), maxBuffer: 16 << 20 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

async function runtimeRemotes(): Promise<Record<string, string>> {
  const res = await fetch(`${SHELL_URL}/runtime-config.json`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { remotes: Record<string, string> }).remotes;
}

/** A new tab each time: what a user opening the dashboard after the deploy gets. */
async function imagesSays(context: BrowserContext, text: string) {
  const page = await context.newPage();
  await page.goto('/dashboard/assets/images');
  await expect(page.getByTestId('gallery-empty')).toContainText(text);
  await page.close();
}

test('a team deploys a rebuilt remote, rolls back, is refused an incompatible build, and a broken record only holds back its own remote', async ({
  context,
}) => {
  test.setTimeout(360_000);
  const user = await createUser('releaser', { onboarded: true });
  await signIn(context, user);
  const configDir = launcherEnv(process.env.E2E_DATA_DIR ?? '').REMOTES_CONFIG_DIR;

  // The team's change, made in a copy beside mfe-assets (same depth: its node_modules links and
  // relative paths resolve); the repository is never touched, even if this journey dies.
  const copy = path.join(root, `.e2e-release-mfe-assets-${process.pid}`);
  cpSync(path.join(root, 'mfe-assets'), copy, {
    recursive: true,
    filter: (src) => !/[/\\](node_modules|dist|preview|test)$/.test(src),
  });
  symlinkSync(path.join(root, 'mfe-assets', 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  const page = path.join(copy, 'src/features/images/images-page.tsx');
  writeFileSync(page, readFileSync(page, 'utf8').replace(OLD_TEXT, NEW_TEXT));

  try {
    await imagesSays(context, OLD_TEXT);

    // 1. The released build first (a CI artifact: already built and stamped), then the change.
    const base = await release(['deploy', 'mfe-assets', '--from', path.join(root, 'mfe-assets', 'dist'), '--by', 'assets-ci']);
    expect(base.code, base.out).toBe(0);
    const rebuilt = await release(['deploy', 'mfe-assets', '--src', copy, '--by', 'assets-team']);
    expect(rebuilt.code, rebuilt.out).toBe(0);
    expect(rebuilt.out).toMatch(/Deployed mfe_assets .* by assets-team/);
    expect((await runtimeRemotes()).mfe_assets).toMatch(new RegExp(`^${remoteUrl('mfe_assets')}/releases/[^/]+/mf-manifest\\.json$`));
    // every new load gets it, no restart, no shell rebuild
    await imagesSays(context, NEW_TEXT);
    await imagesSays(context, NEW_TEXT);
    const list = await release(['list', 'mfe-assets']);
    expect(list.out).toMatch(/live +\S+ +0\.\d+\.\d+ +commit \S+ +contract \S+ +by assets-team/);
    expect(list.out).toMatch(/rollback \S+ .* by assets-ci/);

    // 2. Roll back: the old text on the next load.
    const back = await release(['rollback', 'mfe-assets', '--by', 'assets-oncall']);
    expect(back.code, back.out).toBe(0);
    await imagesSays(context, OLD_TEXT);
    const live = (await runtimeRemotes()).mfe_assets;

    // 3. An incompatible build (no longer exposing ./App, which the shell mounts): refused at
    // deploy time with the reason; nothing changes for users.
    const config = path.join(copy, 'rsbuild.config.ts');
    writeFileSync(config, readFileSync(config, 'utf8').replace(`'./App': './src/app.tsx'`, `'./Gallery': './src/app.tsx'`));
    const refused = await release(['deploy', 'mfe-assets', '--src', copy, '--by', 'assets-team']);
    expect(refused.code).toBe(1);
    expect(refused.out).toMatch(/refused: mfe_assets .* does not expose \.\/App, which this shell mounts/);
    expect((await runtimeRemotes()).mfe_assets).toBe(live);
    await imagesSays(context, OLD_TEXT);

    // 4. A record edited by hand into broken JSON: that remote keeps its last good entry, the
    // runtime config still answers, and another team still deploys.
    writeFileSync(path.join(configDir, 'mfe_assets.json'), '{ "remote": "mfe_assets", "current": { "release": ');
    expect((await runtimeRemotes()).mfe_assets).toBe(live);
    await imagesSays(context, OLD_TEXT);
    const tools = await release(['deploy', 'mfe-tools', '--from', path.join(root, 'mfe-tools', 'dist'), '--by', 'tools-team']);
    expect(tools.code, tools.out).toBe(0);
    const after = await runtimeRemotes();
    expect(after.mfe_tools).toMatch(new RegExp(`^${remoteUrl('mfe_tools')}/releases/[^/]+/mf-manifest\\.json$`));
    expect(after.mfe_assets).toBe(live);
    const tab = await context.newPage();
    await tab.goto('/dashboard/tools/midjourney');
    await expectMidjourney(tab);
    await tab.close();
    await imagesSays(context, OLD_TEXT);
    expect(readFileSync(path.join(ARTIFACTS, 'server.log'), 'utf8')).toMatch(/mfe_assets\.json refused: it is not valid JSON.*keeps its last good entry/);
  } finally {
    rmSync(copy, { recursive: true, force: true });
    // the other journeys run against the launcher's defaults again
    for (const remote of ['mfe_assets', 'mfe_tools']) rmSync(path.join(configDir, `${remote}.json`), { force: true });
  }
});
