import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    setupFiles: ['test/helpers/fail-on-warnings.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Unhandled rejections and errors fail the run (vitest's default); keep it that way.
    dangerouslyIgnoreUnhandledErrors: false,
  },
});
