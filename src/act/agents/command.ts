// command adapter: runs the user's argv templates (agents.cancel_argv, agents.redispatch_argv) without a
// shell; exit code 0 = done. A marker is written `running` before the command and `done`/`failed` after,
// so a crash or timeout while it runs reads as "cannot tell" (an orphan), never as "run it again".
import { promises as fs } from 'node:fs';
import { CommandRecordSchema, parseMarker, type CommandRecord } from '../../contracts/markers.js';
import { msToIso } from '../../contracts/time.js';
import { createFileExclusive, writeFileAtomic } from '../../files/atomic-write.js';
import { DEFAULTS } from '../../contracts/defaults.js';
import type { AdapterOp } from '../../contracts/vocabulary.js';
import type { AdapterDeps, AgentAdapter, AgentsConfig, CancelRequest, MarkerState, RedispatchRequest } from './adapter.js';
import { agentEnv } from './agent-env.js';
import { expandArgv, placeholderValues } from './argv-template.js';
import { failed, ioFailure, orphan, succeeded } from './outcome.js';
import { agentFiles, nudgeLaunchRequest } from './process-launch.js';
import { runArgv } from './run-argv.js';
import { stepFile } from './step-file.js';
import { ancestry, findProcessesWithEnv, type ProcessIdentity } from '../../sys/proc-identity.js';

type Status = CommandRecord['status'];

/** `epics/<epic>/commands/<key>.<op>.json`. */
export function commandFile(req: CancelRequest, op: AdapterOp): string {
  return stepFile(req.paths.commandsDir(req.epicId), req.key, op);
}

async function readStatus(file: string): Promise<Status | 'missing' | 'unreadable'> {
  try {
    return parseMarker(CommandRecordSchema, await fs.readFile(file, 'utf8'))?.status ?? 'unreadable';
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
  }
}

/** done → done; none or failed (exit ≠ 0: the command says it did nothing) → absent; running, timed out or unreadable → unknown. */
export async function commandMarker(req: CancelRequest, op: AdapterOp): Promise<MarkerState> {
  const s = await readStatus(commandFile(req, op));
  return s === 'done' ? 'done' : s === 'missing' || s === 'failed' ? 'absent' : 'unknown';
}

/** Run the command of one step once per key. */
async function runStep(
  op: AdapterOp,
  req: CancelRequest | RedispatchRequest,
  template: readonly string[] | undefined,
  timeoutMs: number,
  deps: AdapterDeps,
  configKey = `agents.${op}_argv`,
) {
  const file = commandFile(req, op);
  const rel = req.paths.relative(file);
  const prior = await readStatus(file);
  if (prior === 'done')
    return succeeded(op, 'command', `the ${op} command for ${req.key} already succeeded (${rel}); not run again.`, { wasAlreadyDone: true, markerPath: file });
  if (prior !== 'missing' && prior !== 'failed')
    return orphan(op, 'command', `${rel} says the ${op} command for ${req.key} started but its result is unknown.`, file);
  if (!template)
    return failed(op, 'command', 'not_configured', `${configKey} is not set: the command adapter runs it to ${op}. Add it to watchdog.config.yaml.`);
  let promptFile: string | undefined;
  if ('prompt' in req) promptFile = agentFiles(req.paths, req.epicId, req.recoveryTaskId).promptFile;
  const expanded = expandArgv(template, placeholderValues(req, promptFile));
  if (!expanded.ok)
    return failed(
      op,
      'command',
      'missing_target',
      `${configKey} uses ${expanded.missing.map((m) => `{${m}}`).join(' ')}, but task ${req.task.taskId} has no value for it.`,
    );
  const rec: CommandRecord = { key: req.key, op, status: 'running', argv_template: [...template], started_at: msToIso(deps.clock.nowMs()) };
  const write = (r: CommandRecord) => writeFileAtomic(file, JSON.stringify(r, null, 2) + '\n');
  try {
    if (promptFile && 'prompt' in req) await writeFileAtomic(promptFile, req.prompt);
    if (prior === 'missing') {
      if (!(await createFileExclusive(file, JSON.stringify(rec, null, 2) + '\n')))
        return orphan(op, 'command', `${rel} appeared while starting the ${op} command.`, file);
    } else await write(rec);
  } catch (e) {
    return ioFailure(op, 'command', `preparing the ${op} command`, e, file);
  }
  // The same marks as a process-adapter launch: whatever the command starts inherits them, so its replacement can be found.
  const marks: Record<string, string> = { DISPATCH_WATCHDOG_KEY: req.key, DISPATCH_WATCHDOG_EPIC_ID: req.epicId, DISPATCH_WATCHDOG_STATE_DIR: req.paths.root };
  if ('recoveryTaskId' in req) marks.DISPATCH_WATCHDOG_TASK_ID = req.recoveryTaskId;
  const env = agentEnv(process.env, marks, deps.claudeConfigDir);
  const r = await runArgv(expanded.argv, { timeoutMs, env });
  const done = { ...rec, exit_code: r.exitCode, signal: r.signal, output_tail: r.outputTail.slice(-500) };
  const tail = r.outputTail.trim() ? ` Output: ${JSON.stringify(r.outputTail.trim().slice(-300))}` : '';
  try {
    if (r.spawnError) {
      await write({ ...done, status: 'failed' });
      return failed(
        op,
        'command',
        'spawn_failed',
        `could not run ${JSON.stringify(expanded.argv[0])}: ${r.spawnError.code ?? r.spawnError.message}. Check ${configKey}[0] is an executable on PATH.`,
        { markerPath: file },
      );
    }
    if (r.exitCode === 0) {
      await write({ ...done, status: 'done' });
      if (op !== 'redispatch') return succeeded(op, 'command', `the ${op} command for ${req.key} exited 0.`, { markerPath: file });
      // The replacement it started is watched like a process-adapter launch: found by the marks it inherited.
      const launched = await launchedProcess(req.key, req.paths.root);
      if (launched)
        return {
          ...succeeded(op, 'command', `the ${op} command for ${req.key} exited 0; its replacement runs as pid ${launched.pid}.`, { markerPath: file }),
          pid: launched.pid,
          identity: launched,
        };
      // Launched elsewhere (another runner, another host): awaited like a request until a row lists
      // it or its answer-by passes (then a failed attempt, as an unanswered request), never "done".
      // Its marker stands in for the request file; it is nothing for the orchestrator to carry out.
      const answerBy = deps.requestDeadlineMs === undefined ? undefined : msToIso(deps.clock.nowMs() + deps.requestDeadlineMs);
      const until = answerBy ? ` by ${answerBy}` : '';
      return succeeded(
        op,
        'command',
        `the ${op} command for ${req.key} exited 0; no process it started carries DISPATCH_WATCHDOG_KEY, so the replacement runs elsewhere: it is awaited until a row lists it${until}, else counted as a failed attempt.`,
        {
          markerPath: file,
          requestPath: rel,
          ...(answerBy ? { answerBy } : {}),
        },
      );
    }
    if (r.timedOut || r.exitCode === null) {
      await write({ ...done, status: 'unknown' });
      const why = r.timedOut ? `ran longer than ${timeoutMs} ms and was killed` : `was killed by ${r.signal}`;
      return failed(op, 'command', 'command_timeout', `the ${op} command for ${req.key} ${why}; whether it took effect is unknown.${tail}`, {
        markerPath: file,
      });
    }
    await write({ ...done, status: 'failed' });
    return failed(op, 'command', 'command_failed', `the ${op} command for ${req.key} exited ${r.exitCode}.${tail}`, { markerPath: file });
  } catch (e) {
    return ioFailure(op, 'command', `recording the ${op} command's result`, e, file);
  }
}

/**
 * The replacement a redispatch command left running: the one live process carrying the key and
 * state dir it was given (DISPATCH_WATCHDOG_KEY, DISPATCH_WATCHDOG_STATE_DIR) whose own parent does
 * not (an agent's tool processes inherit the marks too). Undefined when none, or more than one, is.
 */
async function launchedProcess(key: string, stateRoot: string): Promise<ProcessIdentity | undefined> {
  const found = await findProcessesWithEnv({ DISPATCH_WATCHDOG_KEY: key, DISPATCH_WATCHDOG_STATE_DIR: stateRoot });
  const pids = new Set(found.map((p) => p.pid));
  const tops: ProcessIdentity[] = [];
  for (const p of found) if (!(await ancestry(p.pid)).slice(1).some((a) => pids.has(a))) tops.push(p);
  return tops.length === 1 ? tops[0] : undefined;
}

/** The command adapter. */
export function createCommandAdapter(agents: AgentsConfig, deps: AdapterDeps): AgentAdapter {
  const timeoutMs = agents.command_timeout_ms ?? DEFAULTS.agents.command_timeout_ms;
  return {
    name: 'command',
    cancel: (req) => runStep('cancel', req, agents.cancel_argv, timeoutMs, deps),
    cancelMarker: (req) => commandMarker(req, 'cancel'),
    redispatch: (req) =>
      req.mode === 'resume'
        ? runStep('redispatch', req, agents.resume_argv, timeoutMs, deps, 'agents.resume_argv')
        : runStep('redispatch', req, agents.redispatch_argv, timeoutMs, deps),
    redispatchMarker: (req) => commandMarker(req, 'redispatch'),
    nudge: (req) => runStep('nudge', nudgeLaunchRequest(req), agents.resume_argv, timeoutMs, deps, 'agents.resume_argv'),
    nudgeMarker: (req) => commandMarker(req, 'nudge'),
  };
}
