// Checks a remote's mf-manifest.json before its code runs: the manifest is fetched anyway (early,
// by the inline script, or by the MF runtime), so refusing an incompatible remote costs no extra
// request. A refused remote never has its entry loaded; its slot says why (remote-slot.tsx) and
// the diagnostics view lists it (routes/diagnostics.tsx).
//
// What is checked: the manifest names the remote it is registered as, exposes every module the
// shell mounts from it (SHELL_MOUNTS) and was built against a shared-kit contract this shell
// provides (SHARED_KIT_CONTRACT). A manifest without a stamp (built by plain `rsbuild build`
// outside this repository's scripts) is accepted and shown as unstamped.

import { SHARED_KIT_CONTRACT, SHELL_MOUNTS, contractIncompatibility } from '@aim/shared-kit/contract';

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

/** Thrown into the MF runtime's manifest fetch for a refused remote: its entry is never loaded. */
export class RemoteRefusedError extends Error {
  constructor(readonly verdict: RemoteVerdict) {
    super(`${verdict.remote} refused: ${verdict.refused}`);
  }
}

const verdicts = new Map<string, RemoteVerdict>();

/** The last verdict on a remote's manifest in this page (what the slot and diagnostics show). */
export function remoteVerdict(remote: string): RemoteVerdict | undefined {
  return verdicts.get(remote);
}

export function recordVerdict(verdict: RemoteVerdict): void {
  verdicts.set(verdict.remote, verdict);
}
