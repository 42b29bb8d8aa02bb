#!/usr/bin/env node
// Publishes ONE remote to the embedded launcher without a restart or a shell rebuild:
//
//   node scripts/remote-release.mjs deploy <remote> [--by <name>] [--from <built dir>] [--src <remote copy>]
//   node scripts/remote-release.mjs rollback <remote> [--by <name>]
//   node scripts/remote-release.mjs list <remote>
//   (npm run remote -- deploy mfe-assets; pnpm --filter @aim/mfe-assets release:deploy)
//
// deploy builds the remote (preview-build.mjs's build and stamp; `--from` takes a folder already
// built and stamped, e.g. a CI artifact), refuses a build the shell would refuse (the shell's own
// manifest check, shared-kit/src/manifest-check.ts), copies it into
// <RELEASES_DIR>/<remote>/<release id>/ (served by the launcher on the remote's origin under
// /releases/<id>/) and points <REMOTES_CONFIG_DIR>/<mf name>.json at it, validated again.
// rollback points the record back at the entry before; list shows the releases. The commands
// work on the data folder directly (same machine as the launcher, same REMOTES_CONFIG_DIR,
// RELEASES_DIR, MFE_*_PORT, PUBLIC_HOST). Docs: docs/operations/previews-and-deploys.md.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { portRefusal, urlPort } from './bad-ports.mjs';
import { build, parseArgs, repoRoot, resolveRemoteFolder, stampFor, stampManifest } from './preview-build.mjs';

const USAGE = 'Usage: node scripts/remote-release.mjs <deploy|rollback|list> <remote> [--by <name>] [--from <dir>] [--src <dir>]';

/** The server's TypeScript modules (records, releases, the shared manifest check), through the server's tsx. */
async function serverModules() {
  const require = createRequire(path.join(repoRoot, 'server', 'package.json'));
  const tsxDir = path.dirname(require.resolve('tsx/package.json'));
  const { register } = await import(pathToFileURL(path.join(tsxDir, 'dist/esm/api/index.mjs')).href);
  register();
  const releases = await import(pathToFileURL(path.join(repoRoot, 'server/src/remotes/releases.ts')).href);
  const sites = await import(pathToFileURL(path.join(repoRoot, 'server/src/remotes/sites.ts')).href);
  return { ...releases, ...sites };
}

/** The remote's site and the data folders, as the launcher on this machine sees them. */
function context(mods, folder, env = process.env) {
  const site = mods.remoteSitesFromEnv(env).find((s) => s.folder === folder);
  const embedded = env.EMBEDDED !== 'false';
  const { configDir, releasesDir } = mods.remoteDataDirs(env, repoRoot, embedded);
  if (!configDir || !releasesDir) throw new Error('set REMOTES_CONFIG_DIR and RELEASES_DIR (the launcher’s) to deploy outside embedded mode');
  for (const refusal of [portRefusal(site.port, `${folder}'s port`), portRefusal(urlPort(site.origin), `${folder}'s origin ${site.origin} uses port`)]) {
    if (refusal) throw new Error(refusal);
  }
  return { site, configDir, releasesDir, log: (line) => console.log(`  ${line}`) };
}

const show = (e) => `${e.version ?? '?'} (commit ${e.commit ?? '?'}, contract ${e.contract ?? '?'}) by ${e.by} at ${e.at}`;

async function deploy(mods, folder, flags) {
  const ctx = context(mods, folder);
  const by = flags.by ?? process.env.USER ?? userInfo().username;
  let from = flags.from ? path.resolve(flags.from) : undefined;
  let temp;
  if (!from) {
    const src = flags.src ? path.resolve(flags.src) : path.join(repoRoot, folder);
    if (!existsSync(path.join(src, 'rsbuild.config.ts'))) throw new Error(`${src} is not a remote's folder (no rsbuild.config.ts)`);
    temp = mkdtempSync(path.join(tmpdir(), `aim-release-${folder}-`));
    from = path.join(temp, 'dist');
    console.log(`  Building ${folder}${flags.src ? ` from ${src}` : ''} …`);
    await build(folder, from, src);
    stampManifest(from, stampFor(folder));
  }
  try {
    const done = await mods.deployRelease(ctx, from, by);
    console.log(
      [
        '',
        `  Deployed ${ctx.site.mf} ${show(done.record.current)}`,
        `  Release          ${done.id}   (${path.join(ctx.releasesDir, folder, done.id)})`,
        `  Manifest         ${done.url}`,
        `  Record           ${path.join(ctx.configDir, `${ctx.site.mf}.json`)}`,
        ...(done.pruned.length ? [`  Pruned           ${done.pruned.join(', ')}`] : []),
        `  Every new load of the dashboard gets it; undo with: node scripts/remote-release.mjs rollback ${folder}`,
        '',
      ].join('\n'),
    );
  } finally {
    if (temp) rmSync(temp, { recursive: true, force: true });
  }
}

async function rollback(mods, folder, flags) {
  const ctx = context(mods, folder);
  const by = flags.by ?? process.env.USER ?? userInfo().username;
  const done = await mods.rollbackRelease(ctx, by);
  const name = (e) => e.release ?? e.manifest;
  console.log(`\n  Rolled ${ctx.site.mf} back from ${name(done.from)} to ${name(done.record.current)}\n  Now              ${show(done.record.current)}\n`);
}

function list(mods, folder) {
  const ctx = context(mods, folder);
  const { record, broken } = mods.currentRecord(ctx.configDir, ctx.site.mf);
  if (broken) console.log(`  ${broken}`);
  const releases = mods.listReleases(ctx.releasesDir, folder);
  const live = record?.current.release;
  const back = record?.previous[0]?.release;
  console.log(`\n  ${ctx.site.mf}: ${record ? `live ${record.current.release ?? record.current.manifest}` : 'no record: the launcher default'}`);
  if (!releases.length) console.log('  no releases yet');
  for (const r of releases.reverse()) {
    const mark = r.id === live ? 'live    ' : r.id === back ? 'rollback' : '        ';
    console.log(`  ${mark} ${r.id}  ${r.version ?? '?'}  commit ${r.commit ?? '?'}  contract ${r.contract ?? '?'}  by ${r.by}  at ${r.at}`);
  }
  console.log('');
}

async function main() {
  const { positional, flags } = parseArgs(process.argv.slice(2));
  const [command, remoteArg] = positional;
  if (!['deploy', 'rollback', 'list'].includes(command)) throw new Error(USAGE);
  const folder = resolveRemoteFolder(remoteArg);
  const mods = await serverModules();
  if (command === 'deploy') await deploy(mods, folder, flags);
  else if (command === 'rollback') await rollback(mods, folder, flags);
  else list(mods, folder);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`remote-release: ${err.message}`);
    process.exit(1);
  });
}
