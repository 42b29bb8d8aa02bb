import { defineConfig } from 'vitest/config';

// Pure logic runs in node; component tests opt into jsdom with a `@vitest-environment jsdom` comment.
// CI retries a failed test once, as the journeys do; `npm test` names every test that needed it
export default defineConfig({
  test: {
    retry: process.env.CI ? 1 : 0,
    // the suites that start the local Supabase services (PGlite + migrations) need more than 10 s on a loaded 2-core machine
    hookTimeout: 60_000,
    testTimeout: 20_000,
    environment: 'node',
    include: ['test/**/*.test.{ts,tsx}'],
    setupFiles: ['@aim/shared-kit/testing/dom-setup'],
    // starts one PostgreSQL for the real-database leg of the keyset paging test (see supabase/test/support)
    globalSetup: ['../supabase/test/support/global-setup.ts'],
  },
});
