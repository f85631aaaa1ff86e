// What every agent harness promises (agents/harness.ts), like the adapters' shared suite: one row
// per harness in HARNESS_BEDS, each passing the same tests. A new agent CLI adds its row (a
// function that writes one of its real sessions' files for a row, and its shell call's name).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentHarness, HarnessContext } from '../../src/agents/harness.js';
import { commandLine, fillCommandLine } from '../../src/agents/harness.js';
import { execFileSync } from 'node:child_process';
import { claudeCodeHarness } from '../../src/agents/claude-code/harness.js';
import { codexHarness } from '../../src/agents/codex/harness.js';
import { HARNESSES } from '../../src/agents/harnesses.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { StatePaths } from '../../src/files/paths.js';
import type { Task } from '../../src/contracts/state-file.js';
import { AGENT_CLIS } from '../../src/contracts/vocabulary.js';
import { TOOL_KINDS } from '../../src/observe/parse/observation.js';
import { makeTask, T0 } from '../helpers/builders.js';
import { tempDir } from '../helpers/temp-dir.js';

interface Bed {
  harness: AgentHarness;
  /** The tool name of its shell call, and the CLI's timeout for one that names none. */
  shellTool: string;
  /** A harness context whose CLI config dir is `home`, for `env`. */
  context(stateDir: string, home: string): HarnessContext;
  /** Write a session of one agent (a shell call open) for `task` under `home`; returns the transcript's path. */
  writeSession(home: string, task: Task): string;
}

const claudeLine = (o: Record<string, unknown>) => JSON.stringify(o) + '\n';

const HARNESS_BEDS: Bed[] = [
  {
    harness: claudeCodeHarness,
    shellTool: 'Bash',
    context: (stateDir, home) => ({
      paths: new StatePaths(stateDir),
      config: { claude: { config_dir: home } },
      env: {},
      isPersistent: false,
      baseTimeoutMs: DEFAULT_POLICY.baseTimeoutMs,
    }),
    writeSession(home, task) {
      const dir = path.join(home, 'projects', '-work-repo');
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `${task.sessionId}.jsonl`);
      const at = (s: number) => new Date(T0 + s * 1000).toISOString();
      writeFileSync(
        file,
        claudeLine({ type: 'user', sessionId: task.sessionId, timestamp: at(0), cwd: '/work/repo', message: { role: 'user', content: 'run the tests' } }) +
          claudeLine({
            type: 'assistant',
            sessionId: task.sessionId,
            timestamp: at(1),
            message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }] },
          }),
      );
      return file;
    },
  },
  {
    harness: codexHarness,
    shellTool: 'exec_command',
    context: (stateDir, home) => ({
      paths: new StatePaths(stateDir),
      config: {},
      env: { CODEX_HOME: home },
      isPersistent: false,
      baseTimeoutMs: DEFAULT_POLICY.baseTimeoutMs,
    }),
    // A rollout as Codex 0.171.0 writes it (docs/codex.md): the session, a turn, an exec_command call still open.
    writeSession(home, task) {
      const dir = path.join(home, 'sessions', '2026', '04', '02');
      mkdirSync(dir, { recursive: true });
      const file = path.join(dir, `rollout-2026-04-02T10-00-00-${task.sessionId}.jsonl`);
      let ordinal = 0;
      const rec = (s: number, type: string, payload: Record<string, unknown>) =>
        claudeLine({ timestamp: new Date(T0 + s * 1000).toISOString(), ordinal: ordinal++, type, payload });
      writeFileSync(
        file,
        rec(0, 'session_meta', { id: task.sessionId, cwd: '/work/repo', originator: 'codex_exec', cli_version: '0.171.0' }) +
          rec(0, 'event_msg', { type: 'task_started', turn_id: 'turn-1' }) +
          rec(1, 'response_item', {
            type: 'function_call',
            name: 'exec_command',
            arguments: JSON.stringify({ cmd: 'npm test', yield_time_ms: 10_000 }),
            call_id: 'call_1',
          }),
      );
      return file;
    },
  },
];

describe('every agent CLI the vocabulary names', () => {
  it('has at most one harness, named like its key', () => {
    for (const [name, h] of Object.entries(HARNESSES)) {
      expect(AGENT_CLIS).toContain(name);
      expect(h!.name).toBe(name);
    }
  });
  it('every registered harness has a bed in this suite', () => {
    expect(
      Object.values(HARNESSES)
        .map((h) => h!.name)
        .sort(),
    ).toEqual(HARNESS_BEDS.map((b) => b.harness.name).sort());
  });
});

describe.each(HARNESS_BEDS)('harness $harness.name', (bed) => {
  const h = bed.harness;
  const row = (over: Partial<Task> = {}) =>
    makeTask({ sessionId: `5e551011-0000-4000-8000-${h.name === 'claude-code' ? '000000000001' : '000000000002'}`, agent: h.name, ...over });
  const other = AGENT_CLIS.find((n) => n !== h.name)!;

  it('reads only rows naming it (claude-code also reads rows naming none)', () => {
    expect(h.readsRow(row())).toBe(true);
    expect(h.readsRow(row({ agent: other }))).toBe(false);
    expect(h.readsRow(row({ agent: undefined }))).toBe(h.name === 'claude-code');
  });

  it('classifies its shell call as `shell` with its timeout, and every call into a known kind', () => {
    const shell = h.classifyTool({ name: bed.shellTool });
    expect(shell.kind).toBe('shell');
    expect(shell.defaultTimeoutMs).toBe(h.defaults.shellTimeoutMs);
    for (const name of ['', 'no_such_tool', '__proto__', 'constructor']) expect(TOOL_KINDS).toContain(h.classifyTool({ name }).kind);
  });

  it('finds its files from a row, and never throws on a row or a file it cannot find', async () => {
    const dir = tempDir();
    const home = path.join(dir, 'home');
    const task = row();
    const file = bed.writeSession(home, task);
    const s = h.connect(bed.context(path.join(dir, 'state'), home));
    expect(await s.findFiles(task, T0)).toEqual({ transcript: file });
    const missing = await s.findFiles(row({ sessionId: '5e551011-0000-4000-8000-00000000dead' }), T0);
    expect(missing.transcript).toBeUndefined();
    expect(missing.reason).toMatch(/\S/);
    expect((await s.findFiles(makeTask({ agent: h.name }), T0)).reason).toMatch(/\S/);
  });

  it('its observers judge its rows, give a row naming another CLI nothing, and never throw on a bad file', async () => {
    const dir = tempDir();
    const home = path.join(dir, 'home');
    const task = row();
    const file = bed.writeSession(home, task);
    const s = h.connect(bed.context(path.join(dir, 'state'), home));
    const parts = async (t: Task) => (await Promise.all(s.observers.map((o) => o.observe(t, T0 + 5_000)))).flat();
    const own = await parts(task);
    expect(own.some((p) => p.lastTool?.name === bed.shellTool && p.lastTool.isOpen)).toBe(true);
    expect(await parts(row({ agent: other }))).toEqual([]);
    for (const o of s.observers) expect(o.observeUnchanged?.(row({ agent: other }), T0 + 5_000) ?? []).toEqual([]);
    writeFileSync(file, '\u0000not json\n{"type":\n');
    await expect(parts(row({ taskId: 't2' }))).resolves.toBeInstanceOf(Array);
  });

  it('its resume, nudge and redispatch commands quote their values when shown', () => {
    for (const argv of [h.commands.resume, h.commands.nudge, h.commands.redispatch]) {
      expect(argv.length).toBeGreaterThan(1);
      expect(argv.join(' ')).toContain('{prompt}');
      const filled = argv.map((a) => a.replaceAll('{prompt}', `it's "done"; rm -rf / $(x)`).replaceAll('{session_id}', 's 1').replaceAll('{cwd}', '/w d'));
      const shown = commandLine(filled);
      expect(shown).toContain(`'it'\\''s "done"; rm -rf / $(x)'`);
      expect(shown).not.toMatch(/ rm -rf \/ \$\(x\)(?!')/);
    }
    expect(h.commands.resume.join(' ')).toContain('{session_id}');
  });

  it('fills its resume and nudge commands for a request: every value one quoted word, nothing expanded by a shell', () => {
    const prompt = `it's "done"; touch pwned $(touch pwned2) \`x\``;
    for (const template of [h.commands.resume, h.commands.nudge]) {
      const line = fillCommandLine(template, { session_id: "s'1 $HOME", prompt });
      expect(line.startsWith(`${template[0]} `)).toBe(true);
      // The shell hands back exactly the template's words with the values in place (printf one per line).
      const words = execFileSync('/bin/sh', ['-c', `printf '%s\\n' ${line.slice(template[0]!.length + 1)}`], { encoding: 'utf8' })
        .split('\n')
        .slice(0, -1);
      expect(words).toEqual(template.slice(1).map((w) => w.replaceAll('{session_id}', "s'1 $HOME").replaceAll('{prompt}', prompt)));
    }
  });

  it('names the tools whose finished call is work done on a file (a checkpoint lists them), each a tool it classifies', () => {
    expect(h.editTools.size).toBeGreaterThan(0);
    for (const name of h.editTools) expect(h.classifyTool({ name }).kind).toBe('file');
  });

  it('lends its words to reasons and requests', () => {
    expect(h.wording.displayName).toMatch(/\S/);
    expect(h.wording.hiddenPromptHint).toMatch(/\S/);
    expect(h.wording.resumeHint).toMatch(/\S/);
  });
});
