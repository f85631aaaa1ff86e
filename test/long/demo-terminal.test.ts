// The demo in a real terminal (tmux) at 70 and 120 columns: it draws the live view `watch` draws (the
// table redrawn in place, the events under it), and every line it leaves on screen, the closing
// summary included, fits the width: nothing wraps mid-word, nothing is cut.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'vitest';
import { BIN, REPO_ROOT } from '../helpers/cli.js';

const HAS_TMUX = spawnSync('tmux', ['-V']).status === 0;
const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The demo in a tmux session of its own (private server), and a way to read its screen. */
function startDemo(columns: number, onTestFinished: (fn: () => Promise<void>) => void) {
  const socket = `dw-demo-${columns}-${randomUUID().slice(0, 8)}`;
  const tmux = (...args: string[]) => execFileSync('tmux', ['-L', socket, '-f', '/dev/null', ...args], { encoding: 'utf8' });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'dw-demo-tty-'));
  // The pane stays open after the demo (exec sleep) so its last screen can be read; the server is ours to kill.
  const cmd = `cd ${quote(REPO_ROOT)} && env TMPDIR=${quote(tmp)} LINEAR_API_KEY= ${quote(process.execPath)} ${quote(BIN)} demo; echo "DEMO-EXIT $?"; exec sleep 600`;
  tmux('new-session', '-d', '-x', String(columns), '-y', '30', '-s', 'demo', cmd);
  /** The screen (`isWhole`: with the scrollback), wrapped lines joined back, trailing blanks dropped. */
  const screen = (isWhole = false) =>
    tmux('capture-pane', '-p', '-J', '-t', 'demo', ...(isWhole ? ['-S', '-'] : []))
      .split('\n')
      .map((l) => l.trimEnd());
  const hasEnded = (ls: string[]) => ls.some((l) => l.startsWith('DEMO-EXIT '));
  // A demo still running is stopped the way a person would (Ctrl-C: it stops its agents itself),
  // and its temp dir is removed only once it has ended.
  onTestFinished(async () => {
    if (!hasEnded(screen(true))) {
      tmux('send-keys', '-t', 'demo', 'C-c');
      await waitFor(() => screen(true), hasEnded, 'the demo to stop on Ctrl-C', 30_000).catch(() => undefined);
    }
    spawnSync('tmux', ['-L', socket, 'kill-server']);
    rmSync(tmp, { recursive: true, force: true, maxRetries: 5 });
  });
  return { screen, hasEnded };
}

/** Poll the screen until `has` holds (a state, not a margin); the deadline only bounds a broken run. */
async function waitFor(read: () => string[], has: (lines: string[]) => boolean, what: string, withinMs = 80_000): Promise<string[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const lines = read();
    if (has(lines)) return lines;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; screen:\n${lines.join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const isHeader = (l: string) => /^TASK +(TICKET +)?VERDICT +IDLE \/ WINDOW/.test(l);

describe.skipIf(!HAS_TMUX)('the demo in a real terminal', () => {
  it.for([70, 120])(
    'at %i columns: the live table of the watch, redrawn in place, and every line fits',
    { timeout: 120_000 },
    async (columns, { expect, onTestFinished }) => {
      const demo = startDemo(columns, onTestFinished);
      // A whole frame after the redispatch: the header, the replacement's row, the event feed.
      const frame = await waitFor(
        () => demo.screen(),
        (ls) => ls.some(isHeader) && ls.some((l) => /^DEMO-102-r1 /.test(l)) && ls.includes('events'),
        'a frame with the replacement',
      );
      expect(frame.find((l) => l.startsWith('dispatch-watchdog  epic DEMO-1  checked '))).toBeDefined();
      expect(
        frame.find((l) => /^DEMO-102 +(DEMO-102 +)?(STALLED|done \(superseded\)) /.test(l)),
        frame.join('\n'),
      ).toBeDefined();
      if (columns >= 120) expect(frame.find(isHeader)).toMatch(/OF WINDOW +STALLS AT/);
      const end = await waitFor(() => demo.screen(true), demo.hasEnded, 'the demo to end');
      expect(end, end.join('\n')).toContain('DEMO-EXIT 0');
      expect(end.join('\n')).toMatch(/the demo went as\s+expected/);
      const long = [...frame, ...end].filter((l) => [...l].length > columns);
      expect(long, `lines over ${columns} columns`).toEqual([]);
      // Redrawn in place: one table header in the whole scrollback, not one per check.
      expect(end.filter(isHeader)).toHaveLength(1);
    },
  );
});
