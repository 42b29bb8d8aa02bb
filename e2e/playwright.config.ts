import os from 'node:os';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { CHROMIUM_LAUNCH, SHELL_URL } from './support/platform.ts';

// `npm test` (scripts/test.mjs) sets PLAYWRIGHT_JSON_OUTPUT_NAME to collect the counts; the
// JSON reporter reads it itself. Without it, JSON would flood the terminal: list only.
const reporter: ReporterDescription[] = [['list']];
if (process.env.PLAYWRIGHT_JSON_OUTPUT_NAME) reporter.push(['json']);

export default defineConfig({
  testDir: './tests',
  outputDir: './test-results',
  globalSetup: './support/global-setup.ts',
  // One platform serves every journey; a 2-core machine runs them one at a time.
  workers: os.availableParallelism() <= 2 ? 1 : 2,
  retries: process.env.CI ? 1 : 0,
  forbidOnly: Boolean(process.env.CI),
  timeout: 60_000,
  expect: { timeout: 15_000 },
  reporter,
  use: {
    actionTimeout: 15_000,
    baseURL: SHELL_URL,
    browserName: 'chromium',
    viewport: { width: 1280, height: 800 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-first-failure',
    launchOptions: CHROMIUM_LAUNCH,
  },
});
