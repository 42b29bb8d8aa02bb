import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // starts one PostgreSQL for the real-database leg (see supabase/test/support)
    globalSetup: ['../supabase/test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
