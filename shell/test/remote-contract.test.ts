import { describe, expect, it } from 'vitest';
import { sharedDeps } from '@aim/shared-kit/mf-shared';
import { type ContractInput, contractProblems } from '@aim/shared-kit/testing/remote-contract';

// The check behind every remote's contract test (mfe-*/test/contract.test.ts), on remotes that
// must fail it: each broken build is reported with what is wrong.
const shell = { name: 'shell', exposes: {}, shared: sharedDeps };
const good = (): ContractInput => ({
  remote: 'mfe_billing',
  remoteFederation: { name: 'mfe_billing', exposes: { './App': './src/app.tsx', './TopUpDialog': './src/top-up.tsx' }, shared: sharedDeps },
  shellFederation: shell,
  remoteImports: ['react', 'react-dom', 'jotai', '@aim/shared-kit/ui', '@stripe/stripe-js/pure'],
  shellImports: ['react', 'react-dom', 'react-dom/client', 'jotai', 'jotai/react', '@aim/shared-kit/ui'],
  exposeExists: () => true,
});

describe('contractProblems', () => {
  it('passes a remote that matches the shell (its own libraries, such as Stripe, are its business)', () => {
    expect(contractProblems(good())).toEqual([]);
  });

  it('reports a wrong federation name and a missing or dangling expose', () => {
    const input = good();
    input.remoteFederation = { ...input.remoteFederation, name: 'billing', exposes: { './App': './src/gone.tsx' } };
    input.exposeExists = (f) => f !== './src/gone.tsx';
    expect(contractProblems(input)).toEqual([
      'the federation name is billing, the runtime config calls it mfe_billing',
      './App points at ./src/gone.tsx, which does not exist',
      'it does not expose ./TopUpDialog, which the shell mounts',
    ]);
  });

  it('reports a shared map that differs from the shell’s: extra, missing and different keys', () => {
    const input = good();
    const { jotai: _dropped, ...rest } = sharedDeps;
    input.remoteFederation = { ...input.remoteFederation, shared: { ...rest, react: { singleton: false }, lodash: { singleton: true } } };
    expect(contractProblems(input)).toEqual([
      'the shell shares jotai, it does not (it would bundle a private copy)',
      'it shares lodash, the shell does not',
      'react is shared as {"singleton":false}, the shell shares it as {"singleton":true,"requiredVersion":"^19.0.0"}',
    ]);
  });

  it('reports a shared-library import the shell does not provide', () => {
    const input = good();
    input.remoteImports = [...input.remoteImports, 'jotai/utils', '@aim/shared-kit/standalone'];
    expect(contractProblems(input)).toEqual([
      'it imports @aim/shared-kit/standalone, which the shell does not provide (add it to shell/src/mf/provide-subpaths.ts)',
      'it imports jotai/utils, which the shell does not provide (add it to shell/src/mf/provide-subpaths.ts)',
    ]);
  });
});
