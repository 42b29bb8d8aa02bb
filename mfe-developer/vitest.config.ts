import { defineConfig } from 'vitest/config';

// Pure logic runs in node; component tests opt into jsdom with a `@vitest-environment jsdom` comment.
// CI retries a failed test once, as the journeys do; `npm test` names every test that needed it
export default defineConfig({
  test: {
    retry: process.env.CI ? 1 : 0,
    // the gateway suite starts the local Supabase services (PGlite + migrations): over 10 s on a loaded 2-core machine
    hookTimeout: 60_000,
    // the API Keys page (key, webhook card with its signing secret, delivery console, samples) renders in jsdom
    // in about 3 s, over 5 s on a loaded 2-core machine
    testTimeout: 20_000,
    environment: 'node',
    include: ['test/**/*.test.{ts,tsx}'],
    setupFiles: ['@aim/shared-kit/testing/dom-setup'],
  },
});
