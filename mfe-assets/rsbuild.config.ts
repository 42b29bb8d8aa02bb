import { defineConfig } from '@rsbuild/core';
import { pluginReact } from '@rsbuild/plugin-react';
import { pluginModuleFederation } from '@module-federation/rsbuild-plugin';
import { remoteBuild } from '@aim/shared-kit/mf-shared';
import { pluginPrecompress } from '@aim/shared-kit/rsbuild-precompress';

const { federation, site } = remoteBuild({
  name: 'mfe_assets',
  folder: 'mfe-assets',
  port: 3002,
  exposes: {
    './App': './src/app.tsx',
  },
});

export default defineConfig({ plugins: [pluginReact(), pluginModuleFederation(federation), pluginPrecompress()], ...site });
