#!/usr/bin/env node
// Builds a deployable preview of ONE remote: a static folder (default <remote>/preview/dist) whose
// mf-manifest.json carries, in metaData.aim, the remote's version, the git commit and the
// shared-kit contract version it was built against. The shell reads that stamp to refuse an
// incompatible remote before its code runs and to list it in /dashboard/diagnostics.
//
//   pnpm --filter @aim/mfe-tools preview:build            (or `pnpm preview:build` inside mfe-tools/)
//   node scripts/preview-build.mjs mfe-tools --out /tmp/tools-preview
//   node scripts/preview-build.mjs --stamp-only            (stamps <remote>/dist after `rsbuild build`)
//
// The remote's own rsbuild.config.ts is used unchanged; only the output folder is redirected.
// Docs: docs/operations/previews-and-deploys.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The remote folders and the MF name each registers under (runtime-config.json's keys). */
export const REMOTE_FOLDERS = ['mfe-tools', 'mfe-assets', 'mfe-billing', 'mfe-developer', 'mfe-onboarding'];
export const mfName = (folder) => folder.replace(/-/g, '_');

/** SHARED_KIT_CONTRACT from shared-kit/src/contract.ts (the one place the version is written). */
export function readContractVersion(root = repoRoot) {
  const source = readFileSync(path.join(root, 'shared-kit/src/contract.ts'), 'utf8');
  const m = /export const SHARED_KIT_CONTRACT = '(\d+\.\d+\.\d+)'/.exec(source);
  if (!m) throw new Error('shared-kit/src/contract.ts: no SHARED_KIT_CONTRACT = "MAJOR.MINOR.PATCH"');
  return m[1];
}

/** The commit the build comes from; '+dirty' when the remote or shared-kit has uncommitted changes. */
export function gitCommit(folder, root = repoRoot) {
  const git = (args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  try {
    const commit = git(['rev-parse', '--short=12', 'HEAD']);
    return git(['status', '--porcelain', '--', folder, 'shared-kit']) ? `${commit}+dirty` : commit;
  } catch {
    return 'unknown';
  }
}

/** Writes the stamp into <dir>/mf-manifest.json's metaData.aim and returns it. */
export function stampManifest(dir, stamp) {
  const file = path.join(dir, 'mf-manifest.json');
  if (!existsSync(file)) throw new Error(`${file} does not exist: build the remote first`);
  const manifest = JSON.parse(readFileSync(file, 'utf8'));
  if (!manifest.metaData || typeof manifest.metaData !== 'object') throw new Error(`${file} has no metaData: not a federation manifest`);
  manifest.metaData.aim = stamp;
  const body = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`);
  // Each file replaced by a rename: the folder's mtime changes, so a static server that lists the
  // folder (server/src/static-sites.ts) lists it again instead of keeping the old sizes.
  const replace = (target, bytes) => {
    writeFileSync(`${target}.tmp`, bytes);
    renameSync(`${target}.tmp`, target);
  };
  // The build precompressed the unstamped manifest (shared-kit/rsbuild-precompress.ts): its
  // .br/.gz are redone, or a client accepting br would get the manifest without the stamp.
  if (existsSync(`${file}.br`) || existsSync(`${file}.gz`)) {
    replace(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
    replace(`${file}.gz`, gzipSync(body, { level: 9 }));
  }
  replace(file, body);
  return stamp;
}

export function stampFor(folder, root = repoRoot) {
  const pkg = JSON.parse(readFileSync(path.join(root, folder, 'package.json'), 'utf8'));
  return { version: pkg.version, commit: gitCommit(folder, root), contract: readContractVersion(root), builtAt: new Date().toISOString() };
}

/** Which remote a command means: a folder name argument, else the folder it runs in (pnpm scripts). */
export function resolveRemoteFolder(arg, cwd = process.cwd()) {
  const folder = arg ?? path.basename(cwd);
  if (!REMOTE_FOLDERS.includes(folder)) {
    throw new Error(`Which remote? Pass one of ${REMOTE_FOLDERS.join(', ')} (or run the package script inside its folder).`);
  }
  return folder;
}

export function parseArgs(argv) {
  const out = { positional: [], flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') continue; // `npm run x -- --flag`
    if (a === '--stamp-only') out.flags.stampOnly = true;
    else if (a.startsWith('--')) out.flags[a.slice(2)] = argv[++i];
    else out.positional.push(a);
  }
  return out;
}

/**
 * Builds the remote `folder` into `outDir` with its own rsbuild.config.ts; `remoteDir` builds a
 * copy of the remote's folder instead (scripts/remote-release.mjs `--src`, the release journey).
 */
export async function build(folder, outDir, remoteDir = path.join(repoRoot, folder)) {
  // The remote's own @rsbuild/core (a dependency of each remote, not of the repository root),
  // config and plugins, as `rsbuild build` would load them.
  const rsbuildCore = ['@rsbuild', 'core'].join('/');
  const require = createRequire(path.join(remoteDir, 'package.json'));
  const { createRsbuild, loadConfig } = await import(pathToFileURL(require.resolve(rsbuildCore)).href);
  process.env.NODE_ENV = 'production';
  const { content } = await loadConfig({ cwd: remoteDir, command: 'build' });
  const config = typeof content === 'function' ? await content({ env: 'production', command: 'build' }) : content;
  const distPath = typeof config.output?.distPath === 'object' ? config.output.distPath : {};
  config.output = { ...config.output, distPath: { ...distPath, root: outDir }, cleanDistPath: true };
  const rsbuild = await createRsbuild({ cwd: remoteDir, rsbuildConfig: config });
  const result = await rsbuild.build();
  await result?.close?.();
}

async function main() {
  const { positional, flags } = parseArgs(process.argv.slice(2));
  const folder = resolveRemoteFolder(positional[0]);
  if (flags.stampOnly) {
    const dir = path.resolve(flags.out ?? path.join(repoRoot, folder, 'dist'));
    const stamp = stampManifest(dir, stampFor(folder));
    console.log(`[stamp] ${mfName(folder)} ${stamp.version} (commit ${stamp.commit}, shared-kit contract ${stamp.contract})`);
    return;
  }
  const outDir = path.resolve(flags.out ?? path.join(repoRoot, folder, 'preview', 'dist'));
  await build(folder, outDir);
  const stamp = stampManifest(outDir, stampFor(folder));
  // relative to the repository (where the serve command below runs), absolute when outside it
  const rel = path.relative(repoRoot, outDir).startsWith('..') ? outDir : path.relative(repoRoot, outDir);
  console.log(
    [
      '',
      `  Preview of ${mfName(folder)} ${stamp.version} (commit ${stamp.commit}, shared-kit contract ${stamp.contract})`,
      `  Folder           ${rel}   (static files: upload it anywhere on an allow-listed origin)`,
      flags.out
        ? `  Serve it here    node scripts/preview-serve.mjs ${folder} --dir ${rel}`
        : `  Serve it here    node scripts/preview-serve.mjs ${folder}   (or: pnpm --filter @aim/${folder} preview:serve)`,
      '',
    ].join('\n'),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err) => {
    console.error(`preview-build: ${err.message}`);
    process.exit(1);
  });
}
