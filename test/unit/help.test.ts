// Help that teaches: every command's --help has examples and exit codes, `help <cmd>` works, a
// typo gets a suggestion, usage errors point at the command's own help, suggested commands keep
// the user's --state-dir.
import type { Command } from 'commander';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { buildProgram, main } from '../../src/cli.js';
import { didYouMean, keepUserFlags, locationFlags, takesFlagOf } from '../../src/cli-help.js';
import { InputError } from '../../src/contracts/errors.js';
import { exitCodeFor } from '../../src/contracts/exit-codes.js';
import { ManualClock } from '../helpers/manual-clock.js';

async function cli(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await main({
    argv,
    env: {},
    cwd: '/nonexistent-cwd',
    output: { out: (t) => void (stdout += t), err: (t) => void (stderr += t) },
    watchDeps: { clock: new ManualClock(Date.parse('2026-04-02T10:00:00Z')), signal: new AbortController().signal, pid: 1 },
  });
  return { code, stdout, stderr };
}

const program = buildProgram({ argv: [], env: {}, cwd: '/', output: { out: () => {}, err: () => {} }, watchDeps: {} as never }, () => {});
const all = (cmd: Command, prefix: string[]): string[][] => cmd.commands.flatMap((c) => [[...prefix, c.name()], ...all(c, [...prefix, c.name()])]);
const commands = [[], ...all(program, [])].map((p) => p.join(' '));

describe('help', () => {
  it.each(commands)('%s --help shows examples and exit codes', async (name) => {
    const r = await cli(...(name ? name.split(' ') : []), '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/\nExamples:\n {2}\$ dispatch-watchdog/);
    expect(r.stdout).toMatch(/\nExit codes:\n {2}0 {2}/);
  });

  it('names a held lock under the exit code it really has (2)', async () => {
    const code = exitCodeFor(new InputError('lock_held', 'another dispatch-watchdog is already watching epic E.'), { err: () => {} });
    expect(code).toBe(2);
    expect((await cli('--help')).stdout).toMatch(new RegExp(`\\n  ${code}  [^\\n]*another watchdog holds the lock`));
  });

  it("help <command> prints that command's help", async () => {
    const r = await cli('help', 'status');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: dispatch-watchdog status [options]');
  });

  it('-v and --version print the version', async () => {
    expect((await cli('-v')).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    expect((await cli('--version')).stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('a mistyped command gets a suggestion, exit 2', async () => {
    const r = await cli('stauts', '--epic-id', 'E');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: unknown command 'stauts'. Did you mean 'status'?\n(run dispatch-watchdog --help for usage)\n");
    expect((await cli('zzz')).stderr).toContain("error: unknown command 'zzz'. Commands: status,");
  });

  it("a subcommand's usage error points to its own help", async () => {
    const r = await cli('recover');
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: required option '--epic-id <id>' not specified\n(run dispatch-watchdog recover --help for usage)\n");
    const since = await cli('friction', '--since', 'yesterday', '--state-dir', '/nonexistent');
    expect(since.stderr).toContain('(run dispatch-watchdog friction --help for usage)');
  });

  it('--now without a zone is an error, not local time', async () => {
    const r = await cli('--epic-id', 'E', '--state-dir', '/nonexistent', '--now', '2026-04-02T10:10:00');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--now: the time has no zone, so it would be read in this machine's local time, got "2026-04-02T10:10:00".`);
  });

  it('a suggested command keeps the --state-dir the user gave', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'no such dir-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const r = await cli('status', '--epic-id', 'E-9', '--state-dir', dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Run \`dispatch-watchdog --epic-id E-9 --once --state-dir '${dir}'\` (or start the watchdog) first.`);
  });
});

describe('help helpers', () => {
  it('did you mean', () => {
    expect(didYouMean('stauts', ['status', 'hook'])).toBe('status');
    expect(didYouMean('frict', ['status', 'friction'])).toBe('friction');
    expect(didYouMean('xyz', ['status', 'hook'])).toBeUndefined();
  });
  it('keeps location flags in backticked commands only, where the command takes them', () => {
    const flags = locationFlags(['--state-dir', 'S', '--config=C.yaml', '--epic-id', 'E']);
    expect(flags).toEqual(['--state-dir', 'S', '--config', 'C.yaml']);
    const takes = takesFlagOf(program);
    expect(
      keepUserFlags('run `dispatch-watchdog recover --epic-id E`, then `dispatch-watchdog status --epic-id E` or `dispatch-watchdog demo`', flags, takes),
    ).toBe(
      'run `dispatch-watchdog recover --epic-id E --state-dir S --config C.yaml`, then `dispatch-watchdog status --epic-id E --state-dir S` or `dispatch-watchdog demo`',
    );
    expect(keepUserFlags('`dispatch-watchdog status --state-dir X`', flags, takes)).toBe('`dispatch-watchdog status --state-dir X`');
    // Asked of commander: next reads a config, replay takes no state dir, hook install does.
    expect(
      keepUserFlags(
        '`dispatch-watchdog next --epic-id E` `dispatch-watchdog replay a.jsonl` `dispatch-watchdog hook install --user` `dispatch-watchdog help`',
        flags,
        takes,
      ),
    ).toBe(
      '`dispatch-watchdog next --epic-id E --state-dir S --config C.yaml` `dispatch-watchdog replay a.jsonl --config C.yaml` `dispatch-watchdog hook install --user --state-dir S` `dispatch-watchdog help`',
    );
  });
});
