// Any Node warning (a leaked listener, a deprecation, an emitted YAML warning) fails the test
// that caused it, as execa's test setup does: warnings are bugs we have not met yet.
// The suite runs several files in one worker process (vitest.config.ts: isolate false), and a
// setup file runs once per file: the listener is added once per process, not once per file.
import { afterEach, expect } from 'vitest';

const KEY = Symbol.for('dispatch-watchdog.test.warnings');
const holder = globalThis as { [KEY]?: string[] };

function processWarnings(): string[] {
  const existing = holder[KEY];
  if (existing) return existing;
  const warnings: string[] = [];
  process.on('warning', (w) => warnings.push(`${w.name}: ${w.message}`));
  holder[KEY] = warnings;
  return warnings;
}

const warnings = processWarnings();

afterEach(() => {
  const seen = warnings.splice(0);
  expect(seen, 'Node warnings were emitted during this test').toEqual([]);
});
