// Per-remote records: each remote's team owns one file, `<REMOTES_CONFIG_DIR>/<mf name>.json`,
// naming the manifest the shell loads for that remote (an absolute URL, or a release id the
// embedded launcher serves under /releases/<id>/ on the remote's own origin), who deployed it,
// when, and the entries before it (for rollback). The launcher lays the accepted records over its
// defaults in runtime-config.json (main.ts); `scripts/remote-release.mjs` writes them.
//
// Nothing is accepted unchecked: a record must parse, fit the schema, and name a reachable
// federation manifest that shared-kit/src/manifest-check.ts accepts (the shell's own check).
// A refused record (a bad deploy, or a hand edit into broken JSON) is logged with the reason and
// the remote keeps its last good entry, kept in memory and on disk beside the record
// (`<mf name>.last-good.json`); every other remote is untouched. Writes are atomic (temp file in
// the same folder, fsync, rename). Docs: docs/operations/previews-and-deploys.md, ADR 0017.
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { SHARED_KIT_CONTRACT } from '@aim/shared-kit/contract';
import { type RemoteVerdict, checkManifest } from '@aim/shared-kit/manifest-check';

/** One deployed version of a remote. Exactly one of `manifest` (absolute URL) and `release` (id). */
export interface RemoteEntry {
  manifest?: string;
  release?: string;
  version?: string;
  commit?: string;
  contract?: string;
  /** Who deployed it (`--by`, else the OS user). */
  by: string;
  /** When (ISO 8601). */
  at: string;
}

export interface RemoteRecord {
  remote: string;
  current: RemoteEntry;
  /** The entries before `current`, newest first: `rollback` goes back to previous[0]. */
  previous: RemoteEntry[];
}

/** Where a remote lives on this launcher: its MF name, package folder and own origin. */
export interface RemoteSite {
  mf: string;
  folder: string;
  origin: string;
}

/** A release id: a folder name, never a path (time + commit, e.g. 20261128T104600Z-1a2b3c4d5e6f). */
export const RELEASE_ID = /^[A-Za-z0-9][A-Za-z0-9._+-]{0,99}$/;

export const recordFile = (dir: string, remote: string) => path.join(dir, `${remote}.json`);
export const lastGoodFile = (dir: string, remote: string) => path.join(dir, `${remote}.last-good.json`);
/** The folder of one release: `<RELEASES_DIR>/<package folder>/<id>/`. */
export const releaseDir = (releasesDir: string, folder: string, id: string) => path.join(releasesDir, folder, id);
/** The URL a release is served at by the embedded launcher, on the remote's own origin. */
export const releaseManifestUrl = (origin: string, id: string) => `${origin}/releases/${id}/mf-manifest.json`;

const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
const optionalString = (v: unknown) => v === undefined || typeof v === 'string';

function entryProblem(v: unknown, where: string): string | undefined {
  if (!isObject(v)) return `${where} is not an object`;
  const hasManifest = v.manifest !== undefined;
  const hasRelease = v.release !== undefined;
  if (hasManifest === hasRelease) return `${where} needs exactly one of "manifest" (an absolute URL) and "release" (a release id)`;
  if (hasManifest) {
    if (typeof v.manifest !== 'string') return `${where}.manifest is not a string`;
    let url: URL;
    try {
      url = new URL(v.manifest);
    } catch {
      return `${where}.manifest "${v.manifest}" is not an absolute URL`;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${where}.manifest "${v.manifest}" is not an http(s) URL`;
  }
  if (hasRelease && (typeof v.release !== 'string' || !RELEASE_ID.test(v.release))) return `${where}.release is not a release id (letters, digits, . _ + -)`;
  for (const key of ['version', 'commit', 'contract']) if (!optionalString(v[key])) return `${where}.${key} is not a string`;
  if (typeof v.by !== 'string' || !v.by) return `${where}.by (who deployed) is missing`;
  if (typeof v.at !== 'string' || Number.isNaN(Date.parse(v.at))) return `${where}.at (when) is not a date`;
  return undefined;
}

/** Parses a record's text for `remote`; throws an Error whose message is the reason it is refused. */
export function parseRecord(remote: string, text: string): RemoteRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`it is not valid JSON (${(err as Error).message})`);
  }
  if (!isObject(raw)) throw new Error('it is not a JSON object');
  if (raw.remote !== remote) throw new Error(`its "remote" is ${JSON.stringify(raw.remote)}, not "${remote}" (the file is named for the remote it configures)`);
  const problem = entryProblem(raw.current, 'current');
  if (problem) throw new Error(problem);
  if (!Array.isArray(raw.previous)) throw new Error('"previous" is not a list');
  raw.previous.forEach((e, i) => {
    const p = entryProblem(e, `previous[${i}]`);
    if (p) throw new Error(p);
  });
  return raw as unknown as RemoteRecord;
}

function entryUrl(entry: RemoteEntry, site: Pick<RemoteSite, 'origin'>): string {
  return entry.manifest ?? releaseManifestUrl(site.origin, entry.release as string);
}

/**
 * The Fetch standard's blocked ports (https://fetch.spec.whatwg.org/#port-blocking): browsers and
 * Node's fetch refuse them ("bad port"). scripts/bad-ports.mjs holds the list the commands check
 * before serving; this names the failure when a record points at one.
 */
function unreachableReason(url: string, err: unknown): string {
  const cause = (err as { cause?: { message?: string } })?.cause?.message ?? (err as Error)?.message ?? String(err);
  if (/bad port/i.test(cause)) {
    return `manifest ${url} cannot be fetched: port ${new URL(url).port} is on the Fetch standard's blocked ports list (https://fetch.spec.whatwg.org/#port-blocking), which browsers refuse too; use another port`;
  }
  return `manifest ${url} is not reachable (${cause})`;
}

export interface ValidateOptions {
  site: RemoteSite;
  /** RELEASES_DIR: release entries are read from disk, not over HTTP. */
  releasesDir?: string;
  shellContract?: string;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export type Validation = { ok: true; url: string; verdict: RemoteVerdict } | { ok: false; url?: string; reason: string };

/** The checks every change goes through: the manifest is reachable and the shell's check accepts it. */
export async function validateEntry(entry: RemoteEntry, opts: ValidateOptions): Promise<Validation> {
  const problem = entryProblem(entry, 'the entry');
  if (problem) return { ok: false, reason: problem };
  const url = entryUrl(entry, opts.site);
  let manifest: unknown;
  if (entry.release !== undefined) {
    if (!opts.releasesDir) return { ok: false, url, reason: `release ${entry.release}: no RELEASES_DIR on this launcher` };
    const file = path.join(releaseDir(opts.releasesDir, opts.site.folder, entry.release), 'mf-manifest.json');
    if (!existsSync(file)) return { ok: false, url, reason: `release ${entry.release} does not exist (${file} is missing)` };
    try {
      manifest = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      return { ok: false, url, reason: `release ${entry.release}: its mf-manifest.json is not JSON (${(err as Error).message})` };
    }
  } else {
    try {
      const res = await (opts.fetch ?? fetch)(url, { signal: AbortSignal.timeout(opts.timeoutMs ?? 5000), headers: { accept: 'application/json' } });
      if (!res.ok) return { ok: false, url, reason: `manifest ${url} answered ${res.status}` };
      manifest = await res.json().catch(() => {
        throw new Error('its body is not JSON');
      });
    } catch (err) {
      if ((err as Error).message === 'its body is not JSON') return { ok: false, url, reason: `manifest ${url}: its body is not JSON` };
      return { ok: false, url, reason: unreachableReason(url, err) };
    }
  }
  const verdict = checkManifest(opts.site.mf, url, manifest, opts.shellContract ?? SHARED_KIT_CONTRACT);
  if (verdict.refused) return { ok: false, url, reason: verdict.refused };
  return { ok: true, url, verdict };
}

/** The steps of an atomic write, replaceable in tests (a crash between write and rename). */
export interface AtomicWriteHooks {
  beforeRename?: (tempFile: string) => void;
}

/** Writes `text` to `file` atomically: a temp file in the same folder, fsync, rename over `file`. */
export function writeFileAtomic(file: string, text: string, hooks: AtomicWriteHooks = {}): void {
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const fd = openSync(temp, 'w', 0o644);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  hooks.beforeRename?.(temp);
  renameSync(temp, file);
  // the rename itself is durable once the folder is synced (not possible on every platform)
  try {
    const dirFd = openSync(path.dirname(file), 'r');
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Windows cannot open a folder: the rename is still atomic
  }
}

export const recordText = (record: RemoteRecord) => `${JSON.stringify(record, null, 2)}\n`;

/** Reads the last good record kept beside `remote`'s record, if any (written only after a validation). */
export function readLastGood(dir: string, remote: string): RemoteRecord | undefined {
  try {
    return parseRecord(remote, readFileSync(lastGoodFile(dir, remote), 'utf8'));
  } catch {
    return undefined;
  }
}

type Log = (line: string) => void;

interface RemoteState {
  /** mtime:size of the record file last looked at. */
  stamp?: string;
  /** The record's current verdict, while it is being checked (requests wait for it). */
  checking?: Promise<void>;
  /** The manifest URL of the last record accepted (memory), served while a newer one is refused. */
  lastGood?: string;
}

/**
 * The launcher's view of the records: `remotes(defaults)` answers the runtime config's `remotes`
 * map, reading each record only when its file's mtime or size changed and validating it once per
 * change (no manifest is re-fetched on a request that finds the file unchanged).
 */
export function createRemoteRecords(opts: { dir: string; sites: RemoteSite[]; releasesDir?: string; log?: Log; fetch?: typeof fetch }) {
  const log: Log = opts.log ?? ((line) => console.error(line));
  const states = new Map<string, RemoteState>(opts.sites.map((s) => [s.mf, {}]));

  async function refresh(site: RemoteSite, state: RemoteState) {
    const file = recordFile(opts.dir, site.mf);
    const keep = () => {
      if (state.lastGood) return state.lastGood;
      const kept = readLastGood(opts.dir, site.mf);
      if (kept) state.lastGood = entryUrl(kept.current, site);
      return state.lastGood;
    };
    let record: RemoteRecord;
    try {
      record = parseRecord(site.mf, readFileSync(file, 'utf8'));
    } catch (err) {
      const kept = keep();
      log(`[remotes] ${file} refused: ${(err as Error).message}; ${site.mf} keeps ${kept ? `its last good entry ${kept}` : 'the launcher default'}`);
      return;
    }
    const checked = await validateEntry(record.current, { site, releasesDir: opts.releasesDir, fetch: opts.fetch });
    if (!checked.ok) {
      const kept = keep();
      log(`[remotes] ${file} refused: ${checked.reason}; ${site.mf} keeps ${kept ? `its last good entry ${kept}` : 'the launcher default'}`);
      return;
    }
    state.lastGood = checked.url;
    try {
      writeFileAtomic(lastGoodFile(opts.dir, site.mf), recordText(record));
    } catch (err) {
      log(`[remotes] could not keep ${lastGoodFile(opts.dir, site.mf)}: ${(err as Error).message}`);
    }
    log(
      `[remotes] ${site.mf} → ${checked.url} (${record.current.version ?? '?'}, commit ${record.current.commit ?? '?'}, by ${record.current.by} at ${record.current.at})`,
    );
  }

  async function urlOf(site: RemoteSite): Promise<string | undefined> {
    const state = states.get(site.mf) as RemoteState;
    const file = recordFile(opts.dir, site.mf);
    let stamp: string | undefined;
    try {
      const st = statSync(file);
      stamp = `${st.mtimeMs}:${st.size}:${st.ino}`;
    } catch {
      stamp = undefined;
    }
    if (stamp === undefined) {
      // no record (never deployed, or removed by its team): the launcher's default
      state.stamp = undefined;
      state.lastGood = undefined;
      return undefined;
    }
    if (state.stamp !== stamp) {
      state.stamp = stamp;
      // one check at a time per remote, in the order the changes were seen
      state.checking = (state.checking ?? Promise.resolve()).then(() => refresh(site, state));
    }
    await state.checking;
    return state.lastGood;
  }

  return {
    /** `defaults` (MF name → manifest URL) with every accepted record laid over it. */
    async remotes(defaults: Record<string, string>): Promise<Record<string, string>> {
      const out = { ...defaults };
      await Promise.all(
        opts.sites.map(async (site) => {
          const url = await urlOf(site);
          if (url) out[site.mf] = url;
        }),
      );
      return out;
    },
  };
}
