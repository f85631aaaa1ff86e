// Vitest global setup: say once, at the top of the run, which tests skip on this machine and why.
// A skipped describe's name shows only in verbose output; a run without ../shared would otherwise
// pass with a count of skipped tests and nothing to say what was not tested.
import { existsSync } from 'node:fs';
import { CLAUDE_FIXTURES } from './shared-fixtures.js';

/** The note for missing real Claude Code samples, or undefined when they are here. */
export function sharedFixturesNote(dir: string = CLAUDE_FIXTURES, exists: (p: string) => boolean = existsSync): string | undefined {
  if (exists(dir)) return undefined;
  return `note: the real Claude Code samples are absent (${dir}; set DW_SHARED_FIXTURES to where they are): their tests in test/integration/observe-fixtures.test.ts and replay-fixtures.test.ts are skipped\n`;
}

export default function setup(): void {
  const note = sharedFixturesNote();
  if (note) process.stdout.write(note);
}
