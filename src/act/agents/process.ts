// process adapter: stops an agent by pid (SIGTERM, a grace period, SIGKILL) after checking that the pid
// is still that agent, and launches replacements from an argv template (process-launch.ts).
// Never kills a process whose identity it cannot verify.
import { DEFAULTS } from '../../contracts/defaults.js';
import type { AdapterDeps, AgentAdapter, AgentsConfig, CancelRequest, MarkerState } from './adapter.js';
import { failed, succeeded } from './outcome.js';
import { launchMarker, launchReplacement, nudgeLaunchRequest } from './process-launch.js';
import { ancestry, isSameProcess, probeProcess, processGroupMembers, type ProcessIdentity } from '../../sys/proc-identity.js';
import { DEFAULT_START_TOLERANCE_MS, verifyTarget } from './verify-target.js';
import { harnessOf } from '../../agents/harnesses.js';
import { processActsOf } from './agent-process-acts.js';
import { isCodexRow } from '../../agents/codex/row.js';
import type { Task } from '../../contracts/state-file.js';

/** How long a SIGKILLed process may take to disappear before we call it a failure. */
const KILL_WAIT_MS = 2000;
const POLL_MS = 10;

export interface ProcessAdapterOptions {
  /** See DEFAULT_START_TOLERANCE_MS. */
  startToleranceMs?: number;
}

/** Send `signal` to the agent, or to its whole process group when that group is the agent's own. */
function signal(pid: number, isGroupOurs: boolean, sig: NodeJS.Signals): void {
  process.kill(isGroupOurs ? -pid : pid, sig);
}

/**
 * Whether `-pid` may be signalled: the agent leads its group, and the group is the agent's alone —
 * not ours or our parent's, no member started before the agent (a process older than the agent
 * cannot be one of its tools; it is someone else's, e.g. a shell whose job the agent joined), and
 * every member descends from the agent (a pid that merely leads a group is not its members' parent).
 */
export async function isAgentsOwnGroup(identity: ProcessIdentity, pgrp: number): Promise<boolean> {
  if (pgrp !== identity.pid) return false;
  const members = await processGroupMembers(pgrp);
  if (members.length === 0) return false;
  return decideGroupIsOurs(identity, members, process.pid, process.ppid);
}

/** The pure rule behind isAgentsOwnGroup. */
export function decideGroupIsOurs(
  identity: ProcessIdentity,
  members: readonly { pid: number; ppid: number; startTicks: number }[],
  ownPid: number,
  parentPid: number,
): boolean {
  const byPid = new Map(members.map((m) => [m.pid, m]));
  const descends = (m: { pid: number; ppid: number }) => {
    for (let p: { pid: number; ppid: number } | undefined = m, hops = 0; p && hops <= members.length; p = byPid.get(p.ppid), hops++)
      if (p.pid === identity.pid) return true;
    return false;
  };
  return members.every((m) => m.pid !== ownPid && m.pid !== parentPid && m.startTicks >= identity.startTicks && descends(m));
}

/** Poll until the process is gone or is no longer `identity`; false when `ms` pass first. */
async function waitGone(identity: ProcessIdentity, ms: number, deps: AdapterDeps): Promise<boolean> {
  const deadline = deps.clock.nowMs() + ms;
  for (;;) {
    const p = await probeProcess(identity.pid);
    if (p.kind === 'gone' || (p.kind === 'alive' && !isSameProcess(identity, p.identity))) return true;
    if (deps.clock.nowMs() >= deadline) return false;
    await deps.clock.sleep(POLL_MS);
  }
}

/** Stop a process: SIGTERM, wait `graceMs`, SIGKILL if it is still the same process. */
export async function terminate(identity: ProcessIdentity, pgrp: number, graceMs: number, deps: AdapterDeps) {
  const pid = identity.pid;
  const isGroupOurs = await isAgentsOwnGroup(identity, pgrp);
  try {
    signal(pid, isGroupOurs, 'SIGTERM');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ESRCH') return succeeded('cancel', 'process', `process ${pid} had already exited.`, { wasAlreadyDone: true });
    return failed(
      'cancel',
      'process',
      'permission_denied',
      `cannot signal process ${pid}: ${code ?? String(e)}. Run the watchdog as the user that owns the agents.`,
    );
  }
  if (await waitGone(identity, graceMs, deps)) return succeeded('cancel', 'process', `process ${pid} stopped after SIGTERM.`);
  try {
    signal(pid, isGroupOurs, 'SIGKILL');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
  if (await waitGone(identity, KILL_WAIT_MS, deps)) {
    return { ...succeeded('cancel', 'process', `process ${pid} ignored SIGTERM for ${graceMs} ms and was killed with SIGKILL.`), wasForced: true };
  }
  return {
    ...failed('cancel', 'process', 'permission_denied', `process ${pid} is still alive ${KILL_WAIT_MS} ms after SIGKILL (uninterruptible I/O?).`, {
      retryable: true,
    }),
    wasForced: true,
  };
}

/** The pid to act on and what we know about it. */
const target = (req: CancelRequest) => ({
  pid: req.expectedProcess?.pid ?? req.task.pid,
  // A row without its own dispatched_at falls back to the wave's, which cannot tell a reused pid from a late start.
  known: { expected: req.expectedProcess, dispatchedAtMs: req.task.dispatchedAtMs, isWaveDispatch: req.task.raw !== undefined && !req.task.raw.dispatched_at },
});

/** The process adapter. `agents.kill_grace_ms` and `agents.redispatch_argv` configure it. */
export function createProcessAdapter(agents: AgentsConfig, deps: AdapterDeps, opts: ProcessAdapterOptions = {}): AgentAdapter {
  const graceMs = agents.kill_grace_ms ?? DEFAULTS.agents.kill_grace_ms;
  const tolerance = opts.startToleranceMs ?? DEFAULT_START_TOLERANCE_MS;
  return {
    name: 'process',
    async cancel(req) {
      const { pid, known } = target(req);
      if (pid === undefined) {
        return failed(
          'cancel',
          'process',
          'missing_target',
          `task ${req.task.taskId} has no pid: the process adapter needs the agent's pid in the state file (or use agents.adapter mailbox).`,
        );
      }
      try {
        // Never the watchdog itself, nor whoever runs it (its parent, the orchestrator, a shell).
        if (pid <= 1 || (await ancestry()).includes(pid)) {
          return failed(
            'cancel',
            'process',
            'identity_unknown',
            `not killed: pid ${pid} is ${pid === process.pid ? 'this watchdog itself' : pid <= 1 ? 'not an agent' : 'an ancestor of this watchdog (its parent, or the process that started it)'}, not task ${req.task.taskId}'s agent. Write the agent's own pid in the row.`,
          );
        }
        const v = await verifyTarget(pid, known, tolerance);
        switch (v.kind) {
          case 'gone':
          case 'other': {
            // An agent may outlive the process the row names (Codex's native agent, its killed node wrapper): its CLI names the owner.
            const acts = processActsOf(req.task);
            const owner = acts?.liveOwner(req.task);
            if (acts && owner !== undefined) return await acts.stop(undefined, owner, graceMs, deps);
            return v.kind === 'gone'
              ? succeeded('cancel', 'process', `process ${pid} had already exited; nothing to stop.`, { wasAlreadyDone: true })
              : succeeded('cancel', 'process', `not killed: ${v.detail}; the agent had already exited.`, { wasAlreadyDone: true });
          }
          case 'unknown':
            return failed(
              'cancel',
              'process',
              'identity_unknown',
              `not killed, and no replacement launched beside it: cannot verify that pid ${pid} is still task ${req.task.taskId}: ${v.detail}.`,
            );
          case 'match':
            {
              const acts = processActsOf(req.task);
              if (acts) return await acts.stop(v.identity.pid, acts.liveOwner(req.task), graceMs, deps);
            }
            return await terminate(v.identity, v.pgrp, graceMs, deps);
        }
      } catch (e) {
        return failed('cancel', 'process', 'io_error', `stopping process ${pid} failed: ${(e as Error).message}.`, { retryable: true });
      }
    },
    async cancelMarker(req): Promise<MarkerState> {
      const { pid, known } = target(req);
      if (pid === undefined) return 'unknown';
      const v = await verifyTarget(pid, known, tolerance);
      return v.kind === 'match' ? 'absent' : v.kind === 'unknown' ? 'unknown' : 'done';
    },
    redispatch: (req) => launchReplacement(req, templateOf(agents, req.task, req.mode === 'resume' ? 'resume' : 'redispatch'), deps),
    redispatchMarker: (req) => launchMarker(req),
    nudge: async (req) => ({ ...(await launchReplacement(nudgeLaunchRequest(req), templateOf(agents, req.task, 'resume'), deps)), kind: 'nudge' }),
    nudgeMarker: (req) => launchMarker(nudgeLaunchRequest({ ...req, message: '', route: 'resume' })),
  };
}

/** The launch template for a row: a Codex row's own (agents.codex, else the Codex harness's defaults), else the configured one. */
function templateOf(agents: AgentsConfig, task: Task, what: 'resume' | 'redispatch'): readonly string[] | undefined {
  if (isCodexRow(task)) return (what === 'resume' ? agents.codex?.resume_argv : agents.codex?.redispatch_argv) ?? harnessOf(task)?.commands[what];
  return what === 'resume' ? agents.resume_argv : agents.redispatch_argv;
}
