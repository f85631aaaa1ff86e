// No secret from any file the watchdog reads reaches what it prints or writes, and no control
// character from a file reaches a terminal (issue 24 items 7 and 6): a state file, config or
// transcript that resolves into /proc, /sys or /dev is refused before it is read; excerpts are
// redacted; a row's escape sequences are shown as escapes in --once, status, the loop's lines.
import { mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { runMain } from '../helpers/in-process-cli.js';
import { assistant, jsonl, text, toolUse } from '../helpers/claude-lines.js';
import { writeWave } from '../helpers/state.js';
import { startWatch } from '../helpers/watch-harness.js';
import { tempDir } from '../helpers/temp-dir.js';

const LINEAR_KEY = 'lin_api_' + 'Q7x9SecretLinearKey0123456789';
const ANTHROPIC_KEY = 'sk-ant-api03-' + 'SecretAnthropicKey0123456789';
const SECRET_ENV = { LINEAR_API_KEY: LINEAR_KEY, ANTHROPIC_API_KEY: ANTHROPIC_KEY };
const recent = () => new Date(Date.now() - 5_000).toISOString();
const old = () => new Date(Date.now() - 3_600_000).toISOString();

/** Every file under `dir`, as text (the dispatch log, watchdog.json, checkpoints, requests, notes). */
function everyFileText(dir: string): string {
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true }).flatMap((e) => {
      const p = path.join(d, e.name);
      if (e.isSymbolicLink()) return [];
      return e.isDirectory() ? walk(p) : [readFileSync(p, 'utf8')];
    });
  return walk(dir).join('\n');
}

const expectNoSecret = (...texts: string[]) => {
  for (const t of texts) {
    expect(t).not.toContain('Q7x9SecretLinearKey');
    expect(t).not.toContain('SecretAnthropicKey');
  }
};

describe('files under /proc, /sys and /dev are never read', () => {
  it('--config /proc/self/environ: exit 2 naming the refusal, the environment never quoted', async () => {
    const dir = tempDir('dw-safe-');
    writeWave(dir, 'E-1', recent(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: recent() }]);
    const r = await runCli(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--config', '/proc/self/environ'], { env: SECRET_ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /refusing to read \/proc\/self\/environ \(it resolves to \/proc\/\d+\/environ\): a \/proc file is no state file, config or transcript, and may hold secrets/,
    );
    expectNoSecret(r.stdout, r.stderr);
  });

  it('a state.yaml linked to /proc/self/environ: exit 2, and nothing of it in the output or the log', async () => {
    const dir = tempDir('dw-safe-');
    mkdirSync(path.join(dir, 'epics', 'E-1'), { recursive: true });
    symlinkSync('/proc/self/environ', path.join(dir, 'epics', 'E-1', 'state.yaml'));
    const r = await runCli(['--epic-id', 'E-1', '--state-dir', dir, '--once'], { env: SECRET_ENV });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('(it resolves to /proc/');
    expect(r.stderr).toContain('may hold secrets');
    expectNoSecret(r.stdout, r.stderr, everyFileText(dir));
  });

  it("a row's transcript_path at /proc/self/environ is a missing source that says why, never read", async () => {
    const dir = tempDir('dw-safe-');
    writeWave(dir, 'E-1', recent(), [
      { task_id: 't1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: recent(), transcript_path: '/proc/self/environ' },
    ]);
    const r = await runCli(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--action', 'report', '--json'], { env: SECRET_ENV });
    const task = JSON.parse(r.stdout).tasks[0];
    expect(task.reason).toContain('refusing to read /proc/self/environ');
    expectNoSecret(r.stdout, r.stderr, everyFileText(dir));
  });
});

describe('secrets in what an agent wrote are redacted wherever they show', () => {
  it('its last output and its last Bash command: not in the table, the log, watchdog.json, the checkpoint or the request', async () => {
    const dir = tempDir('dw-safe-');
    const claude = tempDir('dw-safe-claude-');
    const transcript = path.join(claude, 'agent.jsonl');
    writeFileSync(
      transcript,
      jsonl(
        assistant(0, [text(`I exported ANTHROPIC_API_KEY=${ANTHROPIC_KEY} and LINEAR_API_KEY=${LINEAR_KEY}`)]),
        assistant(1, [toolUse('tu1', 'Bash', { command: `curl -H "Authorization: Bearer ${LINEAR_KEY}" https://api.linear.app`, timeout: 5000 })]),
      ),
    );
    writeWave(dir, 'E-1', old(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: old(), transcript_path: transcript }]);
    const once = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once']);
    expect(once.code).toBe(3);
    const status = await runMain(['status', '--epic-id', 'E-1', '--state-dir', dir]);
    const files = everyFileText(dir);
    expect(files).toContain('Authorization: Bearer [redacted]');
    expect(files).toContain('ANTHROPIC_API_KEY=[redacted]');
    expectNoSecret(once.stdout, once.stderr, status.stdout, files);
  });
});

describe('control characters from files are escaped on output', () => {
  const hostile = 'in_progress\u001b[2J\u001b]0;owned\u0007\r\u202eevil';
  const isRaw = (t: string) => /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(t);

  it('--once, status and stderr show a row status full of escapes as text', async () => {
    const dir = tempDir('dw-safe-');
    writeWave(dir, 'E-1', recent(), [{ task_id: 't1', ticket_id: 'P-1', status: hostile, last_activity_ts: recent() }]);
    const once = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--action', 'report']);
    expect(once.code).toBe(4);
    expect(once.stdout).toContain('in_progress\\e[2J\\e]0;owned\\x07\\r\\u202eevil');
    expect(once.stderr).toContain('in_progress\\e[2J');
    const status = await runMain(['status', '--epic-id', 'E-1', '--state-dir', dir]);
    expect(status.stdout).toContain('in_progress\\e[2J');
    for (const t of [once.stdout, once.stderr, status.stdout]) expect(isRaw(t)).toBe(false);
  });

  it("the loop's event lines and warnings", async () => {
    const dir = tempDir('dw-safe-');
    const t0 = Date.parse('2026-04-02T10:00:00Z');
    writeWave(dir, 'E-1', new Date(t0).toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: hostile, last_activity_ts: new Date(t0).toISOString() }]);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'report', checkInterval: 30 }, t0 + 1000);
    await h.advance(30_000);
    h.stop();
    expect(await h.done).toBe(0);
    expect(h.out.join('')).toContain('unknown: status "in_progress\\e[2J');
    expect(isRaw(h.out.join('') + h.err.join(''))).toBe(false);
  });

  it('an error quoting a config value', async () => {
    const dir = tempDir('dw-safe-');
    writeWave(dir, 'E-1', recent(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', last_activity_ts: recent() }]);
    const config = path.join(dir, 'bad.yaml');
    writeFileSync(config, 'timeout_seconds: "\\e[31m\\u202e"\n');
    expect(statSync(config).isFile()).toBe(true);
    const r = await runMain(['--epic-id', 'E-1', '--state-dir', dir, '--once', '--config', config]);
    expect(r.code).toBe(2);
    expect(isRaw(r.stderr)).toBe(false);
    expect(r.stderr).toMatch(/\\u001b\[31m\\u202e/);
  });
});
