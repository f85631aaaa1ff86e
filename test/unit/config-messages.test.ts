// Config and flag errors list every problem, in our words (never zod's), each with file:line:col
// where there is one, and a config file that cannot be read says what actually happened.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/contracts/config.js';
import { InputError } from '../../src/contracts/errors.js';
import { main } from '../../src/cli.js';
import { resolveOptions } from '../../src/options.js';
import { adapterFor } from '../../src/wiring.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { tempDir } from '../helpers/temp-dir.js';

function configError(text: string): string {
  const r = parseConfig(text, 'c.yaml');
  if (r.ok) throw new Error('expected an error');
  return r.error.describe();
}

/** The user-facing text of what resolveOptions (then the adapter) refuses. */
async function optionsError(flags: Parameters<typeof resolveOptions>[0], config?: string): Promise<string> {
  const dir = tempDir();
  if (config !== undefined) writeFileSync(path.join(dir, 'watchdog.config.yaml'), config);
  try {
    const opts = await resolveOptions({ stateDir: dir, ...flags }, {}, dir);
    adapterFor(opts, new ManualClock(0));
  } catch (e) {
    if (!(e instanceof InputError)) throw e;
    return e.describe().replaceAll(dir, '<dir>');
  }
  throw new Error('expected an error');
}

describe('config file problems', () => {
  it('lists every problem, each at its line, in our words', () => {
    const text =
      'timeout_seconds: -3\nactoin: report\nexemptions:\n  rate_limit_factor: 0\n  ci_polling_patterns: []\n  rate_limit_patterns: [""]\nlooping:\n  repeat_count: 1.5\nlinear:\n  api_url: not a url\n';
    const message = configError(text);
    expect(message).toMatchInlineSnapshot(`
      "6 problems:
        - c.yaml:1:18 timeout_seconds: expected a number > 0, got number -3. Fix that key in the config file (docs/state-files.md lists every key).
        - c.yaml:2:1 actoin: unknown key "actoin". Remove that key or fix its spelling (docs/state-files.md lists every key).
        - c.yaml:4:22 exemptions.rate_limit_factor: expected a number >= 1, got number 0. Fix that key in the config file (docs/state-files.md lists every key).
        - c.yaml:6:25 exemptions.rate_limit_patterns[0]: expected a non-empty string, got "". Fix that key in the config file (docs/state-files.md lists every key).
        - c.yaml:8:17 looping.repeat_count: expected a whole number, got number 1.5. Fix that key in the config file (docs/state-files.md lists every key).
        - c.yaml:10:12 linear.api_url: expected a URL, got "not a url". Fix that key in the config file (docs/state-files.md lists every key)."
    `);
    expect(message).not.toMatch(/Too small|Too big|Invalid|received/);
  });

  it('a single problem reads as before: one line, no list', () => {
    expect(configError('check_interval_seconds: 0\n')).toMatchInlineSnapshot(
      `"c.yaml:1:25 check_interval_seconds: expected a number > 0, got number 0. Fix that key in the config file (docs/state-files.md lists every key)."`,
    );
  });
});

describe('agents.* problems carry file:line', () => {
  it('every problem of the adapter config, at the key (or its section when the key is missing)', async () => {
    const config = 'action: redispatch\nagents:\n  adapter: command\n  cancel_argv: [kill, "{pdi}"]\n';
    expect(await optionsError({ epicId: 'E-1' }, config)).toMatchInlineSnapshot(`
      "2 problems:
        - <dir>/watchdog.config.yaml:4:23 agents.cancel_argv[1]: unknown placeholder {pdi}. Expected one of {prompt} {prompt_file} {ticket} {attempt} {checkpoint} {task_id} {recovery_task_id} {epic} {key} {pid} {agent_id} {agent_name} {team} {session_id} {cwd}, got "{pdi}". Fix the placeholder name; each argv element is passed as is, without a shell.
        - <dir>/watchdog.config.yaml:3:3 agents.redispatch_argv: the command adapter needs it to launch a replacement, got nothing. Add agents.redispatch_argv to watchdog.config.yaml, e.g. ["my-tool", "start", "{task_id}"], or use agents.adapter: mailbox."
    `);
  });
});

describe('flags and config together', () => {
  it('lists the flag problems and the config problems in one error', async () => {
    expect(await optionsError({ epicId: '../x', now: 'yesterday' }, 'timeout_seconds: fast\n')).toMatchInlineSnapshot(`
      "3 problems:
        - epic id "../x" cannot be used: expected 1-128 letters, digits, ".", "_", "@" or "-", starting with a letter or digit. Use an id such as "PROJ-1000"; an id with "/" or ".." would make a path outside the state dir.
        - --now: expected an ISO-8601 time with a zone, got "yesterday". Add Z for UTC or an offset, e.g. --now 2026-04-02T10:10:00Z or --now 2026-04-02T12:10:00+02:00
        - <dir>/watchdog.config.yaml:1:18 timeout_seconds: expected number, got "fast". Fix that key in the config file (docs/state-files.md lists every key)."
    `);
  });
});

describe('a config file that cannot be read says why', () => {
  it('not found', async () => {
    expect(await optionsError({ epicId: 'E-1', config: 'nope.yaml' })).toMatchInlineSnapshot(
      `"<dir>/nope.yaml: config file not found. Check the --config path."`,
    );
  });

  it('a path through a file', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'f'), '');
    expect((await optionsError({ epicId: 'E-1', config: path.join(dir, 'f', 'c.yaml') })).replaceAll(dir, '<d>')).toMatchInlineSnapshot(
      `"<d>/f/c.yaml: config file not found: a part of its path is a file, not a directory. Check the --config path."`,
    );
  });

  it('a directory', async () => {
    const dir = tempDir();
    mkdirSync(path.join(dir, 'c.yaml'));
    expect((await optionsError({ epicId: 'E-1', config: path.join(dir, 'c.yaml') })).replaceAll(dir, '<d>')).toMatchInlineSnapshot(
      `"<d>/c.yaml: the config file is not a regular file."`,
    );
  });
});

describe('flag values', () => {
  async function cli(...argv: string[]) {
    let stderr = '';
    // A state dir that exists: only the flag problems are listed.
    const cwd = tempDir();
    mkdirSync(path.join(cwd, '.onex_state'));
    const code = await main({
      argv,
      env: {},
      cwd,
      output: { out: () => {}, err: (t) => void (stderr += t) },
      watchDeps: { clock: new ManualClock(0), signal: new AbortController().signal, pid: 1 },
    });
    return { code, stderr };
  }

  it('every bad value is listed, with the other flag problems, and nothing runs', async () => {
    expect(
      await cli('--state-dir', '.', '--timeout', '-3', '--action', 'nuke', '--max-redispatches', '1.5', '--check-interval', 'soon', '--now', 'yesterday'),
    ).toMatchInlineSnapshot(`
      {
        "code": 2,
        "stderr": "dispatch-watchdog: 6 problems:
        - --timeout: expected a number of seconds above 0 and at most 604800 (7 days), got "-3".
        - --action: expected one of report, cancel, redispatch, got "nuke".
        - --max-redispatches: expected a whole number >= 0, got "1.5".
        - --check-interval: expected a number of seconds above 0 and at most 604800 (7 days), got "soon".
        - --epic-id is required. e.g. dispatch-watchdog --epic-id PROJ-1000
        - --now: expected an ISO-8601 time with a zone, got "yesterday". Add Z for UTC or an offset, e.g. --now 2026-04-02T10:10:00Z or --now 2026-04-02T12:10:00+02:00
      (run dispatch-watchdog --help for usage)
      ",
      }
    `);
  });

  it('a subcommand lists its bad values too, before it runs', async () => {
    expect(await cli('next', '--epic-id', 'E-1', '--timeout', '0', '--max-redispatches', 'two')).toMatchInlineSnapshot(`
      {
        "code": 2,
        "stderr": "dispatch-watchdog: 2 problems:
        - --timeout: expected a number of seconds above 0 and at most 604800 (7 days), got "0".
        - --max-redispatches: expected a whole number >= 0, got "two".
      (run dispatch-watchdog --help for usage)
      ",
      }
    `);
  });
});
