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
    // suites about other things (the fuzzer, the queue) send hundreds of requests from one key
    // in seconds: far over the rate limits; test/rate-limits.test.ts passes its own, defaults included
    env: {
      RATE_LIMIT_SUBMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_SUBMIT_ACCOUNT_PER_MINUTE: '1000000',
      RATE_LIMIT_READ_PER_MINUTE: '1000000',
      RATE_LIMIT_ACCOUNT_PER_MINUTE: '1000000',
      RATE_LIMIT_ADDRESS_PER_MINUTE: '1000000',
    },
  },
});
