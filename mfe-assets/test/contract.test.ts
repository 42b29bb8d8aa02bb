import { describe, expect, it, vi } from 'vitest';
import { SHELL_MOUNTS } from '@aim/shared-kit/contract';
import { contractProblems, loadContractInput } from '@aim/shared-kit/testing/remote-contract';

// Keep the options each rsbuild config passes to the federation plugin (the real plugin hides them).
vi.mock('@module-federation/rsbuild-plugin', () => ({ pluginModuleFederation: (options: unknown) => ({ name: 'aim:federation-options', options }) }));

// This remote's build against the shell's: what must hold to build and ship it alone
// (docs/operations/previews-and-deploys.md). The shell checks the built manifest again at run time.
describe('mfe_assets against the shell (the shared-kit contract)', async () => {
  const input = await loadContractInput('mfe_assets', 'mfe-assets');

  it('is named as the runtime config names it and exposes what the shell mounts', () => {
    expect(input.remoteFederation.name).toBe('mfe_assets');
    for (const expose of SHELL_MOUNTS.mfe_assets!) expect(Object.keys(input.remoteFederation.exposes)).toContain(expose);
  });

  it('shares exactly what the shell shares, and imports only shared modules the shell provides', () => {
    expect(input.remoteImports.length).toBeGreaterThan(0);
    expect(contractProblems(input)).toEqual([]);
  });
});
