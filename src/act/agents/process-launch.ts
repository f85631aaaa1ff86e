// Launch a replacement agent from agents.redispatch_argv (no shell interprets it), detached, output to a log
// under the state dir. The launch protocol (docs/recovery.md "The launch marker"), so that a crash at any
// point leads to exactly one replacement:
//   1. a spawn token `<marker>.token` is created (empty), then the marker as `launching` naming it;
//   2. the replacement is spawned through `/bin/sh -c 'rm -f -- "$0" || exit 125; exec "$@"' <token> <argv…>`:
//      it removes the token and then becomes the agent (same pid, argv passed as arguments, never parsed);
//   3. the marker is completed with the pid.
// A `launching` marker is settled from that evidence: a live process carrying DISPATCH_WATCHDOG_KEY is
// adopted; a token still there (and no such process) proves nothing was spawned, so the launch runs now;
// a token gone proves the replacement started (and has exited): done, never launched twice. A marker
// without a token (torn, or written by an older version) stays "cannot tell" (an orphan).
// The replacement starts in the stalled agent's own working directory (the row's, or its session's
// first `cwd`: with a worktree per ticket, the remaining work must land in that checkout); without one, in the watchdog's.
import { spawn } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import type { AdapterName } from '../../contracts/vocabulary.js';
import { LaunchRecordSchema, parseMarker, type LaunchRecord } from '../../contracts/markers.js';
import { msToIso } from '../../contracts/time.js';
import { createFileExclusive, ensureDir, FILE_MODE, writeFileAtomic } from '../../files/atomic-write.js';
import { crashPoint } from '../../sys/crash-point.js';
import type { StatePaths } from '../../files/paths.js';
import type { AdapterDeps, MarkerState, NudgeRequest, RedispatchOutcome, RedispatchRequest } from './adapter.js';
import { agentEnv } from './agent-env.js';
import { expandArgv, placeholderValues } from './argv-template.js';
import { failed, ioFailure, orphan, succeeded } from './outcome.js';
import { findProcessesWithEnv, readProcessIdentity } from '../../sys/proc-identity.js';
import { stepFile } from './step-file.js';
import { processActsOf } from './agent-process-acts.js';

/** Where a launched agent's prompt and output go: `epics/<epic>/agents/<recovery_task_id>.{prompt.md,log}`. */
export function agentFiles(paths: StatePaths, epicId: string, recoveryTaskId: string) {
  const dir = paths.agentsDir(epicId);
  return { promptFile: path.join(dir, `${recoveryTaskId}.prompt.md`), logFile: path.join(dir, `${recoveryTaskId}.log`) };
}

/** A nudge by resume (process and command adapters): the session resumed with the nudge as its prompt, launched once per nudge key. */
export function nudgeLaunchRequest(req: NudgeRequest): RedispatchRequest {
  return { ...req, attempt: 1, recoveryTaskId: `${req.task.taskId}-nudge`, checkpointPath: '', prompt: req.message, mode: 'resume' };
}

/** The launch marker of a redispatch key. */
export function launchFile(req: RedispatchRequest): string {
  return stepFile(req.paths.launchesDir(req.epicId), req.key, 'redispatch');
}

/** The spawn token of a launch marker: present from before the spawn until the replacement starts. */
export const tokenFile = (markerFile: string) => markerFile.replace(/\.json$/, '') + '.token';

/** The launch record, `missing`, or `unreadable` (torn or foreign content: treated as "cannot tell"). */
export async function readLaunchRecord(file: string): Promise<LaunchRecord | 'missing' | 'unreadable'> {
  try {
    return parseMarker(LaunchRecordSchema, await fs.readFile(file, 'utf8')) ?? 'unreadable';
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'missing' : 'unreadable';
  }
}

/**
 * Settle a `launching` marker (a crash between marker and launch, see the module comment): the record
 * completed as launched (adopted, or started and gone), `never` (provably nothing was spawned: launch
 * now), or undefined (cannot tell). A live replacement carries DISPATCH_WATCHDOG_KEY=<key> and
 * DISPATCH_WATCHDOG_STATE_DIR in its environment (the same key in another state dir is another watchdog's).
 */
async function settleLaunching(req: RedispatchRequest, rec: LaunchRecord, file: string): Promise<LaunchRecord | 'never' | undefined> {
  if (rec.status !== 'launching') return undefined;
  const found = await findProcessesWithEnv({ DISPATCH_WATCHDOG_KEY: req.key, DISPATCH_WATCHDOG_STATE_DIR: req.paths.root });
  if (found.length > 1) return undefined;
  if (found.length === 1) {
    const p = found[0]!;
    const launched = { ...rec, status: 'launched' as const, pid: p.pid, start_ticks: p.startTicks, boot_id: p.bootId };
    await writeFileAtomic(file, JSON.stringify(launched, null, 2) + '\n');
    return launched;
  }
  if (rec.spawn_token !== path.basename(tokenFile(file))) return undefined;
  const token = await fs.lstat(tokenFile(file)).then(
    () => true,
    (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? false : undefined),
  );
  if (token === undefined) return undefined;
  if (token) return 'never';
  // Started (it removed the token) and already exited: launched, its pid no longer known.
  const { spawn_token: _t, ...rest } = rec;
  const launched: LaunchRecord = { ...rest, status: 'launched', exited_before_recorded: true };
  await writeFileAtomic(file, JSON.stringify(launched, null, 2) + '\n');
  return launched;
}

/** launched → done; none or failed → absent; launching → settled from its evidence (done, absent) or unknown; unreadable → unknown. */
export async function launchMarker(req: RedispatchRequest): Promise<MarkerState> {
  const file = launchFile(req);
  const rec = await readLaunchRecord(file);
  if (rec === 'missing') return 'absent';
  if (rec === 'unreadable') return 'unknown';
  if (rec.status === 'launching') {
    const settled = await settleLaunching(req, rec, file);
    return settled === 'never' ? 'absent' : settled ? 'done' : 'unknown';
  }
  return rec.status === 'launched' ? 'done' : 'absent';
}

/** The replacement's argv behind the token remover (see the module comment): `"$@"` is never parsed by the shell. */
const SPAWN_WRAPPER = ['/bin/sh', '-c', 'rm -f -- "$0" || exit 125; exec "$@"'];

/** Spawn detached with stdout and stderr appended to `logFile`; resolves once the process exists. */
async function spawnDetached(argv: string[], logFile: string, env: NodeJS.ProcessEnv, cwd: string | undefined) {
  await ensureDir(path.dirname(logFile));
  // Private (the agent's output may quote code and secrets) and never through a symlink.
  const log = await fs.open(logFile, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, FILE_MODE);
  try {
    const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['ignore', log.fd, log.fd], env, ...(cwd ? { cwd } : {}) });
    await new Promise((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.unref();
    return child.pid!;
  } finally {
    await log.close();
  }
}

/**
 * Throw as spawn would (ENOENT, EACCES) when `cmd` is no executable file: behind the token remover the
 * spawn itself succeeds whatever argv[0] is, so a missing agent CLI is caught here, before the launch.
 */
async function assertExecutable(cmd: string, env: NodeJS.ProcessEnv, cwd: string | undefined): Promise<void> {
  const candidates = cmd.includes('/')
    ? [path.resolve(cwd ?? process.cwd(), cmd)]
    : (env.PATH ?? '')
        .split(':')
        .filter(Boolean)
        .map((d) => path.join(d, cmd));
  let code = 'ENOENT';
  for (const c of candidates) {
    try {
      if (!(await fs.stat(c)).isFile()) continue;
      await fs.access(c, constants.X_OK);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EACCES') code = 'EACCES';
    }
  }
  throw Object.assign(new Error(`${cmd}: ${code}`), { code });
}

const isDir = (p: string) =>
  fs.stat(p).then(
    (s) => s.isDirectory(),
    () => false,
  );

const RETRYABLE_SPAWN = new Set(['EAGAIN', 'ENOMEM', 'EMFILE', 'ENFILE']);

/** Launch the replacement once per key; see the module comment for the marker protocol. */
export async function launchReplacement(
  req: RedispatchRequest,
  template: readonly string[] | undefined,
  deps: AdapterDeps,
  adapter: AdapterName = 'process',
): Promise<RedispatchOutcome> {
  const file = launchFile(req);
  const rel = req.paths.relative(file);
  let rec = await readLaunchRecord(file);
  let isNeverSpawned = false;
  if (typeof rec === 'object' && rec.status === 'launching') {
    const settled = await settleLaunching(req, rec, file);
    if (settled === 'never') isNeverSpawned = true;
    else if (settled) rec = settled;
  }
  if (typeof rec === 'object' && rec.status === 'launched') {
    const identity = rec.start_ticks === undefined || rec.pid === undefined ? undefined : { pid: rec.pid, startTicks: rec.start_ticks, bootId: rec.boot_id };
    const was = rec.pid === undefined ? 'already launched (and has exited)' : `already launched (pid ${rec.pid})`;
    return {
      ...succeeded('redispatch', adapter, `${req.recoveryTaskId} was ${was}; not launched again.`, { wasAlreadyDone: true, markerPath: file }),
      pid: rec.pid,
      identity,
    };
  }
  if (rec === 'unreadable' || (typeof rec === 'object' && rec.status === 'launching' && !isNeverSpawned)) {
    return orphan(
      'redispatch',
      adapter,
      `${rel} says a launch of ${req.recoveryTaskId} began but never recorded a pid (a crash between marker and spawn?), so it may or may not be running.`,
      file,
    );
  }
  const configKey = req.mode === 'resume' ? 'agents.resume_argv' : 'agents.redispatch_argv';
  if (!template) {
    const example = req.mode === 'resume' ? '["claude", "--resume", "{session_id}", "-p", "{prompt}"]' : '["claude", "-p", "{prompt}"]';
    return failed(
      'redispatch',
      adapter,
      'not_configured',
      `${configKey} is not set: the ${adapter} adapter launches ${req.mode === 'resume' ? 'resumes' : 'replacements'} from it. Add e.g. ${example} to watchdog.config.yaml.`,
    );
  }
  const files = agentFiles(req.paths, req.epicId, req.recoveryTaskId);
  const expanded = expandArgv(template, placeholderValues(req, files.promptFile));
  if (!expanded.ok) {
    return failed(
      'redispatch',
      adapter,
      'missing_target',
      `${configKey} uses ${expanded.missing.map((m) => `{${m}}`).join(' ')}, but task ${req.task.taskId} has no value for it.`,
    );
  }
  if (req.cwd !== undefined && !(await isDir(req.cwd))) {
    return failed(
      'redispatch',
      adapter,
      'missing_target',
      `${req.task.taskId} worked in ${req.cwd}, which is no longer a directory: its replacement would work in another checkout. Restore the worktree (or relaunch by hand), then answer again.`,
    );
  }
  const base: LaunchRecord = {
    key: req.key,
    status: 'launching',
    recovery_task_id: req.recoveryTaskId,
    argv_template: [...template],
    prompt_file: req.paths.relative(files.promptFile),
    log_file: req.paths.relative(files.logFile),
    started_at: msToIso(deps.clock.nowMs()),
    ...(req.cwd ? { cwd: req.cwd } : {}),
    spawn_token: path.basename(tokenFile(file)),
  };
  try {
    await writeFileAtomic(files.promptFile, req.prompt);
    await writeFileAtomic(tokenFile(file), ''); // before the marker: a `launching` marker always has its token
    const body = JSON.stringify(base, null, 2) + '\n';
    if (rec === 'missing') {
      if (!(await createFileExclusive(file, body))) return orphan('redispatch', adapter, `${rel} appeared while launching ${req.recoveryTaskId}.`, file);
    } else {
      await writeFileAtomic(file, body); // a failed launch, or a `launching` one whose token proves nothing was spawned: safe to try again
    }
  } catch (e) {
    return ioFailure('redispatch', adapter, `preparing the launch of ${req.recoveryTaskId}`, e, file);
  }
  crashPoint('after', 'launching'); // test-only (sys/crash-point.ts): a crash between marker and spawn
  // The row's CLI may need its own environment (a Codex agent resumes, and its replacement writes, under its CODEX_HOME).
  const codexHome: Record<string, string> = processActsOf(req.task)?.launchEnv(req.task) ?? {};
  const env = agentEnv(
    process.env,
    {
      DISPATCH_WATCHDOG_KEY: req.key,
      DISPATCH_WATCHDOG_TASK_ID: req.recoveryTaskId,
      DISPATCH_WATCHDOG_EPIC_ID: req.epicId,
      DISPATCH_WATCHDOG_STATE_DIR: req.paths.root,
      ...codexHome,
    },
    deps.claudeConfigDir,
  );
  let pid: number;
  try {
    await assertExecutable(expanded.argv[0]!, env, req.cwd);
    pid = await spawnDetached([...SPAWN_WRAPPER, tokenFile(file), ...expanded.argv], files.logFile, env, req.cwd);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'error';
    await writeFileAtomic(file, JSON.stringify({ ...base, status: 'failed', error: code }, null, 2) + '\n').catch(() => undefined);
    return failed(
      'redispatch',
      adapter,
      'spawn_failed',
      `could not run ${JSON.stringify(expanded.argv[0])}: ${code}. Check agents.redispatch_argv[0] is an executable on PATH.`,
      { retryable: RETRYABLE_SPAWN.has(code), markerPath: file },
    );
  }
  crashPoint('after', 'spawned'); // test-only: a crash between the spawn and the completed marker
  const identity = await readProcessIdentity(pid);
  const detail = `${req.recoveryTaskId} launched as pid ${pid}${req.cwd ? ` in ${req.cwd}` : ''}, output in ${base.log_file}.`;
  try {
    await writeFileAtomic(
      file,
      JSON.stringify({ ...base, status: 'launched', pid, start_ticks: identity?.startTicks, boot_id: identity?.bootId }, null, 2) + '\n',
    );
  } catch (e) {
    return {
      ...succeeded('redispatch', adapter, `${detail} (the launch marker could not be completed: ${(e as Error).message})`, { markerPath: file }),
      pid,
      identity,
    };
  }
  return { ...succeeded('redispatch', adapter, detail, { markerPath: file }), pid, identity };
}
