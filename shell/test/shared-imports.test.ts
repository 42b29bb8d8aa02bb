import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sharedDeps } from '@aim/shared-kit/mf-shared';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FRONT_ENDS = ['shell', 'mfe-tools', 'mfe-assets', 'mfe-billing', 'mfe-developer', 'mfe-onboarding'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sources(full);
    return /\.(ts|tsx)$/.test(e.name) ? [full] : [];
  });
}

const importers = (pattern: RegExp) =>
  FRONT_ENDS.flatMap((app) => sources(path.join(root, app, 'src')))
    .filter((file) => pattern.test(readFileSync(file, 'utf8')))
    .map((file) => path.relative(root, file));

// Chakra and React Router are not MF shared modules (a shared library ships whole); their single
// instances come from '@aim/shared-kit/ui' and '@aim/shared-kit/router', shared-kit singletons
// built with only what they re-export. A direct import in an app's source would bundle a private
// copy whose context never sees the shell's <ChakraProvider> / <RouterProvider>.
describe('Chakra and the router reach the front-ends through shared-kit only', () => {
  it('no app source imports @chakra-ui/react directly', () => {
    expect(importers(/from '@chakra-ui\/react[^']*'|import\('@chakra-ui\/react/)).toEqual([]);
  });

  it('no app source imports react-router or react-router-dom directly', () => {
    expect(importers(/from 'react-router(-dom)?(\/[^']*)?'|import\('react-router/)).toEqual([]);
  });

  it('shares shared-kit (so its ui and router modules) as singletons, and neither library whole', () => {
    expect(sharedDeps['@aim/shared-kit/']).toMatchObject({ singleton: true });
    expect(sharedDeps['@emotion/react']).toMatchObject({ singleton: true });
    const keys = Object.keys(sharedDeps);
    for (const lib of ['@chakra-ui/react', 'react-router', 'react-router/', 'react-router-dom']) expect(keys).not.toContain(lib);
  });
});
