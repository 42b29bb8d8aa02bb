import { defineConfig } from '@rsbuild/core';
import { pluginReact } from '@rsbuild/plugin-react';
import { pluginModuleFederation } from '@module-federation/rsbuild-plugin';
import { remoteBuild } from '@aim/shared-kit/mf-shared';
import { pluginPrecompress } from '@aim/shared-kit/rsbuild-precompress';

const { federation, site } = remoteBuild({
  name: 'mfe_tools',
  folder: 'mfe-tools',
  port: 3001,
  exposes: {
    './App': './src/app.tsx',
  },
});

export default defineConfig({ plugins: [pluginReact(), pluginModuleFederation(federation), pluginPrecompress()], ...site });
