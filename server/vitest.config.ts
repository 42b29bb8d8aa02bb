import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // CI retries a failed test once, as the journeys do; `npm test` names every test that needed it
    retry: process.env.CI ? 1 : 0,
    // starts one PostgreSQL for the real-database leg (see supabase/test/support)
    globalSetup: ['../supabase/test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
