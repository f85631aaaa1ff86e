// The watchdog as a real child process beside real Claude Code sessions (claude-session.ts):
//
//   const w = startWatchdog({ stateDir, epic: 'E-1', claudeDir: s.claudeDir, args: ['--timeout', '30'] });
//   await w.waitTask('t1', (t) => t.verdict === 'healthy', 'the lead healthy');   // polls watchdog.json
//   await judge({ stateDir, epic: 'E-1', claudeDir, aheadMs: 100_000 })           // one --once / --now check
//   await judgeHooksAlone({ sessionId, lines, aheadMs })  // the session's hook lines only, no transcript in reach
//   w.checks()                                   // every check so far, from the loop's --json output
//
// The loop runs with `--json --check-interval 1 --action report` unless `args` say otherwise, and
// CLAUDE_CONFIG_DIR pointing at the session's ~/.claude. It is SIGKILLed when the test ends.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { runCli, spawnCli, until } from './cli.js';
import { writeWave } from './state.js';
import { tempDir } from './temp-dir.js';

export interface TaskView {
  task_id: string;
  verdict: string;
  reason: string;
  sources: string[];
  exemptions: string[];
  [k: string]: unknown;
}

export interface RunningWatchdog {
  output(): string;
  /** Every check's report printed so far (`--json`: one line each), oldest first. */
  checks(): { check_timestamp: string; tasks: TaskView[]; stalls_detected: Record<string, any>[] }[];
  /** The tasks of the latest watchdog.json (empty before the first check). */
  tasks(): TaskView[];
  waitTask(taskId: string, pred: (t: TaskView) => boolean, what: string, timeoutMs?: number): Promise<TaskView>;
  stop(): void;
}

export function readTasks(stateDir: string, epic: string): TaskView[] {
  try {
    return JSON.parse(readFileSync(path.join(stateDir, 'epics', epic, 'watchdog.json'), 'utf8')).tasks ?? [];
  } catch {
    return [];
  }
}

/**
 * `env`: added to the watchdog's environment (a replacement it launches inherits it). With a HOME
 * in it, `claudeDir` must be `$HOME/.claude` and no CLAUDE_CONFIG_DIR is set: Claude Code reads
 * its config from CLAUDE_CONFIG_DIR when set, and a replacement would not find the agent's.
 */
export function startWatchdog(o: { stateDir: string; epic: string; claudeDir: string; args?: string[]; env?: NodeJS.ProcessEnv }): RunningWatchdog {
  const args = o.args ?? [];
  const defaults = [
    '--json',
    ...(args.includes('--check-interval') ? [] : ['--check-interval', '1']),
    ...(args.includes('--action') ? [] : ['--action', 'report']),
  ];
  const child = spawnCli(['--epic-id', o.epic, '--state-dir', o.stateDir, ...defaults, ...args], {
    env: o.env?.HOME ? o.env : { ...o.env, CLAUDE_CONFIG_DIR: o.claudeDir },
  });
  onTestFinished(() => void child.kill('SIGKILL'));
  return {
    output: () => child.output(),
    checks: () =>
      child
        .output()
        .split('\n')
        .flatMap((l) => {
          if (!l.startsWith('{"')) return [];
          try {
            const r = JSON.parse(l);
            return r.check_timestamp ? [r] : [];
          } catch {
            return [];
          }
        }),
    tasks: () => readTasks(o.stateDir, o.epic),
    waitTask: (taskId, pred, what, timeoutMs = 60_000) =>
      until(
        () => readTasks(o.stateDir, o.epic).find((t) => t.task_id === taskId && pred(t)),
        timeoutMs,
        `${what} (watchdog output: ${child.output().slice(-500)}; last: ${JSON.stringify(readTasks(o.stateDir, o.epic).find((t) => t.task_id === taskId))})`,
      ),
    stop: () => void child.kill('SIGTERM'),
  };
}

/** One check now (`--once`), or as of `aheadMs` from now (`--now`, which writes nothing); the tasks judged. */
export async function judge(o: { stateDir: string; epic: string; claudeDir: string; aheadMs?: number; args?: string[] }): Promise<TaskView[]> {
  const args = ['--epic-id', o.epic, '--state-dir', o.stateDir, '--action', 'report', '--json', ...(o.args ?? [])];
  const when = o.aheadMs ? ['--now', new Date(Date.now() + o.aheadMs).toISOString()] : ['--once'];
  const r = await runCli([...args, ...when], { env: { CLAUDE_CONFIG_DIR: o.claudeDir } });
  try {
    return JSON.parse(r.stdout).tasks;
  } catch {
    throw new Error(`dispatch-watchdog exited ${r.code} without JSON: ${r.stderr}`);
  }
}

/**
 * One check of a row (task `t1`, by `sessionId`) that sees only the session's hook activity lines,
 * as a watchdog out of reach of its transcripts (another host, a container) does: the lines as
 * written, without the transcript path they name, and a Claude config dir with no transcripts.
 */
export async function judgeHooksAlone(o: { sessionId: string; lines: Record<string, unknown>[]; aheadMs?: number; args?: string[] }): Promise<TaskView> {
  const stateDir = tempDir();
  writeWave(stateDir, 'E-HOOKS', new Date().toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: o.sessionId }]);
  mkdirSync(path.join(stateDir, 'activity'));
  const lines = o.lines.map(({ transcript_path: _, ...l }) => `${JSON.stringify(l)}\n`);
  writeFileSync(path.join(stateDir, 'activity', `${o.sessionId}.ndjson`), lines.join(''));
  const claudeDir = tempDir();
  mkdirSync(path.join(claudeDir, 'projects'));
  const [task] = await judge({ stateDir, epic: 'E-HOOKS', claudeDir, aheadMs: o.aheadMs, args: o.args });
  return task!;
}
