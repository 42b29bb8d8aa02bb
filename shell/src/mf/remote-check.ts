// Checks a remote's mf-manifest.json before its code runs: the manifest is fetched anyway (early,
// by the inline script, or by the MF runtime), so refusing an incompatible remote costs no extra
// request. A refused remote never has its entry loaded; its slot says why (remote-slot.tsx) and
// the diagnostics view lists it (routes/diagnostics.tsx).
//
// The rules themselves (name, mounted exposes SHELL_MOUNTS, shared-kit contract) are
// shared-kit/src/manifest-check.ts, the same check the launcher and `scripts/remote-release.mjs`
// run before a deploy is accepted.

import type { RemoteVerdict } from '@aim/shared-kit/manifest-check';

export { type RemoteVerdict, checkManifest } from '@aim/shared-kit/manifest-check';

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
