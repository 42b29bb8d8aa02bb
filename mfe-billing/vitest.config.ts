import { defineConfig } from 'vitest/config';

// Pure logic runs in node; component tests opt into jsdom with a `@vitest-environment jsdom` comment.
export default defineConfig({
  test: { environment: 'node', include: ['test/**/*.test.{ts,tsx}'], setupFiles: ['test/support/dom-setup.ts'] },
});
