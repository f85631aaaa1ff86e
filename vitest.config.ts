import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // `npm test` runs everything but test/long/ (real-time tests of minutes: a 4-minute streaming
    // model turn); `npm run test:long` (DW_LONG=1) runs only those. CI runs both.
    include: process.env.DW_LONG ? ['test/long/**/*.test.ts'] : ['test/**/*.test.ts'],
    exclude: process.env.DW_LONG ? [] : ['test/long/**', '**/node_modules/**'],
    setupFiles: ['test/helpers/fail-on-warnings.ts'],
    // One line at the top of the run naming the tests that skip here (no ../shared samples).
    globalSetup: ['test/helpers/announce-skips.ts'],
    pool: 'forks',
    // Most files wait on child processes and timers, not the CPU: vitest's default (cores - 1)
    // runs them one at a time on a 2-core machine.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Unhandled rejections and errors fail the run (vitest's default); keep it that way.
    dangerouslyIgnoreUnhandledErrors: false,
  },
});
