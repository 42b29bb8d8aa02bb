// The shared-kit contract: what a remote may rely on from the shell that hosts it. At run time a
// remote gets the SHELL's shared-kit (an MF singleton), its React/jotai/emotion singletons and the
// props and exposes listed here, not the copies it was built with. Every build stamps the contract
// version it was built against into its mf-manifest.json (scripts/preview-build.mjs), and the
// shell refuses a remote whose contract it cannot honour (shell/src/mf/remote-check.ts).
//
// Semver, decided in docs/decisions/ (the contract-version ADR):
// - MAJOR: something a built remote relies on changes or goes away (a shared-kit export is removed
//   or changes meaning, RemoteAppProps changes, a shared singleton's major version moves, the shell
//   stops mounting an expose in a new way). A remote built against another major is refused.
// - MINOR: something is added (a shared-kit export, an optional prop). A remote built against a
//   newer minor than the shell's would call what this shell lacks, so it is refused too; an older
//   minor is fine.
// - PATCH: no change to what a remote can see (fixes behind the same API).

/** The contract version of this shared-kit. Bump it with every change a remote could notice. */
export const SHARED_KIT_CONTRACT = '2.0.0';

/** The exposed modules the shell mounts from each remote: a remote missing one is refused. */
export const SHELL_MOUNTS: Record<string, readonly string[]> = {
  mfe_tools: ['./App'],
  mfe_assets: ['./App'],
  mfe_billing: ['./App', './TopUpDialog'],
  mfe_developer: ['./App'],
  mfe_onboarding: ['./App'],
};

function parse(version: string): [number, number, number] | null {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
}

/**
 * Why a remote built against contract `built` cannot run in a shell that provides `provided`, or
 * null when it can (same major, and a minor no newer than the shell's).
 */
export function contractIncompatibility(provided: string, built: string): string | null {
  const have = parse(provided);
  const want = parse(built);
  if (!want) return `its shared-kit contract version "${built}" is not a version (MAJOR.MINOR.PATCH)`;
  if (!have) return `this shell's shared-kit contract version "${provided}" is not a version`;
  if (want[0] !== have[0]) return `it was built against shared-kit contract ${built}, this shell provides ${provided} (major versions differ)`;
  if (want[1] > have[1]) return `it was built against shared-kit contract ${built}, newer than the ${provided} this shell provides`;
  return null;
}
