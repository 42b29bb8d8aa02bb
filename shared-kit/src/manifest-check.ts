// The one check of a remote's mf-manifest.json, run wherever a remote is accepted: by the shell
// before a remote's code runs (shell/src/mf/remote-check.ts, early-preload.ts agrees with it), and
// by the launcher and `scripts/remote-release.mjs` before a deploy, a rollback or a hand-edited
// record is accepted (server/src/remotes/remote-records.ts). No DOM, no React: plain data in,
// a verdict out.
//
// What is checked: the manifest names the remote it is registered as, exposes every module the
// shell mounts from it (SHELL_MOUNTS) and was built against a shared-kit contract this shell
// provides (SHARED_KIT_CONTRACT). A manifest without a stamp (built by plain `rsbuild build`
// outside this repository's scripts) is accepted and shown as unstamped.

import { SHARED_KIT_CONTRACT, SHELL_MOUNTS, contractIncompatibility } from './contract.ts';

/** What scripts/preview-build.mjs writes into a manifest's metaData.aim. */
type RemoteStamp = { version?: string; commit?: string; contract?: string; builtAt?: string };

export type RemoteVerdict = {
  remote: string;
  url: string;
  /** The remote's own version: the stamp's, else the build info the MF plugin writes. */
  version?: string;
  commit?: string;
  contract?: string;
  exposes: string[];
  /** Why the shell refuses this remote (name, versions and what is incompatible); absent when accepted. */
  refused?: string;
};

type Manifest = {
  name?: unknown;
  metaData?: { name?: unknown; buildInfo?: { buildVersion?: unknown }; aim?: RemoteStamp };
  exposes?: { path?: unknown; name?: unknown }[];
};

const str = (v: unknown) => (typeof v === 'string' && v ? v : undefined);

export function checkManifest(remote: string, url: string, raw: unknown, shellContract = SHARED_KIT_CONTRACT): RemoteVerdict {
  const manifest = (raw && typeof raw === 'object' ? raw : {}) as Manifest;
  const meta = manifest.metaData && typeof manifest.metaData === 'object' ? manifest.metaData : {};
  const stamp: RemoteStamp = meta.aim && typeof meta.aim === 'object' ? meta.aim : {};
  const version = str(stamp.version) ?? str(meta.buildInfo?.buildVersion);
  const exposes = (Array.isArray(manifest.exposes) ? manifest.exposes : []).map((e) => str(e?.path) ?? (str(e?.name) ? `./${e.name}` : '')).filter(Boolean);
  const verdict: RemoteVerdict = { remote, url, version, commit: str(stamp.commit), contract: str(stamp.contract), exposes };
  const who = `${remote}${version ? ` ${version}` : ''}${verdict.commit ? ` (commit ${verdict.commit})` : ''}`;
  const name = str(manifest.name) ?? str(meta.name);
  if (!manifest.metaData || !Array.isArray(manifest.exposes)) {
    verdict.refused = `${url} is not a federation manifest (no metaData or exposes)`;
  } else if (name !== remote) {
    verdict.refused = `${url} is the manifest of ${name ?? 'an unnamed remote'}, not of ${remote}`;
  } else if (verdict.contract !== undefined && contractIncompatibility(shellContract, verdict.contract)) {
    verdict.refused = `${who}: ${contractIncompatibility(shellContract, verdict.contract)}`;
  } else {
    const missing = (SHELL_MOUNTS[remote] ?? []).filter((e) => !exposes.includes(e));
    if (missing.length) verdict.refused = `${who} does not expose ${missing.join(', ')}, which this shell mounts`;
  }
  return verdict;
}
