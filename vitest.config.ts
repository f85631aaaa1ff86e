import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // `npm test` runs everything but test/long/: the real-time scenarios of tens of seconds to
    // minutes (a 4-minute streaming model turn, the stall signatures and subagent discovery on
    // real sessions, real sessions seen through OpenTelemetry, the plugin installed by Claude Code,
    // the demo in a real terminal, a scripted lead's workers); `npm run test:long` (DW_LONG=1)
    // runs only those. CI runs both. Each of them is also covered in npm test by faster tests of
    // the rule it exercises (unit and integration tests on recorded and generated transcripts).
    include: process.env.DW_LONG ? ['test/long/**/*.test.ts'] : ['test/**/*.test.ts'],
    exclude: process.env.DW_LONG ? [] : ['test/long/**', '**/node_modules/**'],
    setupFiles: ['test/helpers/fail-on-warnings.ts'],
    // One line at the top of the run naming the tests that skip here (no ../shared samples).
    globalSetup: ['test/helpers/announce-skips.ts'],
    pool: 'forks',
    // A worker process runs its files one after another without a fresh module graph for each
    // (vitest's isolate): importing vitest, zod and our modules again for each of 140 files cost
    // more CPU than most of the tests (unit tests: 18 s of CPU isolated, 6 s not). Tests keep no
    // state in modules: what a test starts it stops, and what it changes (process.env) it restores.
    isolate: false,
    // Most files wait on child processes and timers, not the CPU: vitest's default (cores - 1)
    // runs them one at a time on a 2-core machine.
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Unhandled rejections and errors fail the run (vitest's default); keep it that way.
    dangerouslyIgnoreUnhandledErrors: false,
  },
});
