import { defineConfig } from 'vitest/config';

// Browser tests drive real Chromium against the built dist/ folders (run `pnpm build` first).
export default defineConfig({ test: { environment: 'node', include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 30_000 } });
