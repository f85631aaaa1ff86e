// Any Node warning (a leaked listener, a deprecation, an emitted YAML warning) fails the test
// that caused it, as execa's test setup does: warnings are bugs we have not met yet.
import { afterEach, expect } from 'vitest';

const warnings: string[] = [];
process.on('warning', (w) => warnings.push(`${w.name}: ${w.message}`));

afterEach(() => {
  const seen = warnings.splice(0);
  expect(seen, 'Node warnings were emitted during this test').toEqual([]);
});
