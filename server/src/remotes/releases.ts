// Release folders and the deploy / rollback / list steps behind `scripts/remote-release.mjs`.
// A release is a built, stamped remote copied into `<RELEASES_DIR>/<folder>/<id>/` (id = UTC
// time + commit) with a release.json; the embedded launcher serves it on the remote's own origin
// under /releases/<id>/. Deploying points the remote's record at it, through the same validation
// the launcher runs (remote-records.ts); the last KEEP_RELEASES folders are kept, never the live
// one or the one rollback would use. Docs: docs/operations/previews-and-deploys.md.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { SHARED_KIT_CONTRACT } from '@aim/shared-kit/contract';
import { checkManifest } from '@aim/shared-kit/manifest-check';
import {
  RELEASE_ID,
  type RemoteEntry,
  type RemoteRecord,
  type RemoteSite,
  lastGoodFile,
  parseRecord,
  readLastGood,
  recordFile,
  recordText,
  releaseDir,
  releaseManifestUrl,
  validateEntry,
  writeFileAtomic,
} from './remote-records.ts';

const KEEP_RELEASES = 5;
/** How many earlier entries a record keeps for rollback. */
const KEEP_HISTORY = 10;

export interface ReleaseInfo {
  id: string;
  remote: string;
  version?: string;
  commit?: string;
  contract?: string;
  by: string;
  at: string;
}

export interface ReleaseContext {
  site: RemoteSite;
  configDir: string;
  releasesDir: string;
  shellContract?: string;
  log?: (line: string) => void;
}

/** `20261128T104600123Z-1a2b3c4d5e6f`: sorts by time; the commit says what it is. */
export function newReleaseId(commit: string | undefined, now = new Date()): string {
  const time = now.toISOString().replace(/[-:]/g, '').replace('.', '');
  const tail = (commit ?? 'unknown').replace(/[^A-Za-z0-9.-]/g, '-').slice(0, 40);
  return `${time}-${tail}`;
}

/** The record as it stands: the file, else (broken by hand) the last good one, else none. */
export function currentRecord(configDir: string, remote: string): { record?: RemoteRecord; broken?: string } {
  const file = recordFile(configDir, remote);
  if (!existsSync(file)) return {};
  try {
    return { record: parseRecord(remote, readFileSync(file, 'utf8')) };
  } catch (err) {
    return { record: readLastGood(configDir, remote), broken: `${file} is refused (${(err as Error).message}); working from its last good entry` };
  }
}

function readReleaseInfo(dir: string): Omit<ReleaseInfo, 'id'> | undefined {
  try {
    return JSON.parse(readFileSync(path.join(dir, 'release.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

/** The release folders of one remote, oldest first. */
export function listReleases(releasesDir: string, folder: string): ReleaseInfo[] {
  const root = path.join(releasesDir, folder);
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory() && RELEASE_ID.test(d.name))
    .map((d) => ({ id: d.name, remote: '', by: '?', at: '?', ...readReleaseInfo(path.join(root, d.name)) }))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** Removes all but the newest `keep` release folders, never one in `protect`. Returns the ids removed. */
export function pruneReleases(releasesDir: string, folder: string, protect: Iterable<string | undefined>, keep = KEEP_RELEASES): string[] {
  const kept = new Set([...protect].filter(Boolean));
  const all = listReleases(releasesDir, folder);
  const removable = all.slice(0, Math.max(0, all.length - keep)).filter((r) => !kept.has(r.id));
  for (const r of removable) rmSync(releaseDir(releasesDir, folder, r.id), { recursive: true, force: true });
  return removable.map((r) => r.id);
}

/** Checks a built folder before anything is copied: the shell's own manifest check. */
function checkBuild(dir: string, site: RemoteSite, shellContract = SHARED_KIT_CONTRACT) {
  const file = path.join(dir, 'mf-manifest.json');
  if (!existsSync(file)) throw new Error(`${dir} has no mf-manifest.json: build the remote first`);
  const verdict = checkManifest(site.mf, file, JSON.parse(readFileSync(file, 'utf8')), shellContract);
  if (verdict.refused) throw new Error(`refused: ${verdict.refused}`);
  return verdict;
}

/** Validates `entry` and makes it the record's current entry (atomically; the last good kept beside it). */
async function pointRecord(ctx: ReleaseContext, entry: RemoteEntry, previous: RemoteEntry[]): Promise<RemoteRecord> {
  const checked = await validateEntry(entry, { site: ctx.site, releasesDir: ctx.releasesDir, shellContract: ctx.shellContract });
  if (!checked.ok) throw new Error(`refused: ${checked.reason}`);
  const record: RemoteRecord = { remote: ctx.site.mf, current: entry, previous: previous.slice(0, KEEP_HISTORY) };
  mkdirSync(ctx.configDir, { recursive: true });
  writeFileAtomic(recordFile(ctx.configDir, ctx.site.mf), recordText(record));
  writeFileAtomic(lastGoodFile(ctx.configDir, ctx.site.mf), recordText(record));
  return record;
}

/** Copies a built, stamped folder into a new release and points the record at it. */
export async function deployRelease(ctx: ReleaseContext, from: string, by: string, now = new Date()) {
  const verdict = checkBuild(from, ctx.site, ctx.shellContract);
  const id = newReleaseId(verdict.commit, now);
  const target = releaseDir(ctx.releasesDir, ctx.site.folder, id);
  const staging = path.join(ctx.releasesDir, ctx.site.folder, `.${id}.staging`);
  const info: ReleaseInfo = {
    id,
    remote: ctx.site.mf,
    version: verdict.version,
    commit: verdict.commit,
    contract: verdict.contract,
    by,
    at: now.toISOString(),
  };
  mkdirSync(path.dirname(staging), { recursive: true });
  rmSync(staging, { recursive: true, force: true });
  cpSync(from, staging, { recursive: true });
  writeFileSync(path.join(staging, 'release.json'), `${JSON.stringify(info, null, 2)}\n`);
  // a release folder appears whole or not at all: the launcher never serves half a copy
  renameSync(staging, target);
  const { record: before, broken } = currentRecord(ctx.configDir, ctx.site.mf);
  if (broken) ctx.log?.(broken);
  const entry: RemoteEntry = { release: id, version: info.version, commit: info.commit, contract: info.contract, by, at: info.at };
  let record: RemoteRecord;
  try {
    record = await pointRecord(ctx, entry, before ? [before.current, ...before.previous] : []);
  } catch (err) {
    rmSync(target, { recursive: true, force: true });
    throw err;
  }
  const pruned = pruneReleases(ctx.releasesDir, ctx.site.folder, [record.current.release, record.previous[0]?.release]);
  return { id, url: releaseManifestUrl(ctx.site.origin, id), record, pruned };
}

/** Points the record back at the entry before the current one. */
export async function rollbackRelease(ctx: ReleaseContext, by: string, now = new Date()) {
  const { record, broken } = currentRecord(ctx.configDir, ctx.site.mf);
  if (broken) ctx.log?.(broken);
  if (!record) throw new Error(`${ctx.site.mf} has no record yet (${recordFile(ctx.configDir, ctx.site.mf)}): nothing to roll back`);
  const [target, ...older] = record.previous;
  if (!target)
    throw new Error(
      `${ctx.site.mf} has no previous entry to roll back to (remove ${recordFile(ctx.configDir, ctx.site.mf)} to return to the launcher's default)`,
    );
  const entry: RemoteEntry = { ...target, by, at: now.toISOString() };
  const next = await pointRecord(ctx, entry, older);
  return { record: next, from: record.current };
}
