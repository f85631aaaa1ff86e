// The demo's stand-in for an orchestrator (the epic-team skill): it dispatches the wave's agents,
// writes epics/<epic>/state.yaml, and marks a row completed when its agent exits 0. This is demo
// code, not the watchdog: the watchdog only ever reads this file.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { stringify } from 'yaml';
import type { Clock } from '../deps.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import type { StatePaths } from '../files/paths.js';
import type { AgentPlan } from './timeline.js';
import type { DemoAgentSpec } from './scenario.js';

/** One dispatched agent and what became of its process. */
export interface AgentRun {
  spec: DemoAgentSpec;
  agentId: string;
  pid: number;
  dispatchedAtMs: number;
  transcriptPath: string;
  exit?: { code: number | null; signal: NodeJS.Signals | null; atMs: number };
  /** The last stderr the agent wrote (diagnostics when the demo fails). */
  stderrTail: string;
}

export interface OrchestratorEnv {
  paths: StatePaths;
  epicId: string;
  clock: Clock;
  nodePath: string;
  scriptPath: string;
  /** Where plans are written, one JSON file per agent. */
  plansDir: string;
  /** Claude Code's projects dir for the demo (transcripts go in a session's subagents/ folder). */
  projectsDir: string;
  repoDir: string;
  /** The parent session every agent's records name (they are its subagents). */
  sessionId: string;
  /** Told about dispatches and exits, for the live view. */
  onNote: (text: string) => void;
}

const STDERR_TAIL_CHARS = 2000;
const agentIdOf = () => 'a' + randomBytes(8).toString('hex');

/** Dispatches the demo's wave and keeps its state file current. */
export class DemoOrchestrator {
  readonly runs: AgentRun[] = [];
  private readonly children = new Map<string, ChildProcess>();
  private readonly exits: Promise<void>[] = [];
  private writes: Promise<void> = Promise.resolve();
  private waveDispatchedAtMs = 0;

  constructor(private readonly env: OrchestratorEnv) {}

  /** `<projects>/<encoded repo>/<session>/subagents/agent-<id>.jsonl`, Claude Code's layout (surfaces §1.1). */
  private transcriptFor(agentId: string): string {
    const project = this.env.repoDir.replace(/[/.]/g, '-');
    return path.join(this.env.projectsDir, project, this.env.sessionId, 'subagents', `agent-${agentId}.jsonl`);
  }

  /** Spawn every agent, then write the state file listing them with their pids. */
  async dispatch(specs: readonly DemoAgentSpec[]): Promise<void> {
    this.waveDispatchedAtMs = this.env.clock.nowMs();
    for (const spec of specs) {
      const agentId = agentIdOf();
      const transcriptPath = this.transcriptFor(agentId);
      await fs.mkdir(path.dirname(transcriptPath), { recursive: true });
      // The file exists before the row names it, so the watchdog never looks for a missing transcript.
      await fs.writeFile(transcriptPath, '');
      const plan: AgentPlan = {
        out: transcriptPath,
        agentId,
        sessionId: this.env.sessionId,
        cwd: this.env.repoDir,
        gitBranch: spec.ticketId.toLowerCase(),
        steps: spec.steps,
      };
      const planFile = path.join(this.env.plansDir, `${spec.taskId}.json`);
      await fs.writeFile(planFile, JSON.stringify(plan, null, 2) + '\n');
      const dispatchedAtMs = this.env.clock.nowMs();
      const child = spawn(this.env.nodePath, [this.env.scriptPath, planFile], { cwd: this.env.repoDir, stdio: ['ignore', 'ignore', 'pipe'] });
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', resolve);
        child.once('error', reject);
      });
      const run: AgentRun = { spec, agentId, pid: child.pid!, dispatchedAtMs, transcriptPath, stderrTail: '' };
      child.stderr!.on('data', (d: Buffer) => (run.stderrTail = (run.stderrTail + d.toString()).slice(-STDERR_TAIL_CHARS)));
      this.exits.push(
        new Promise((resolve) =>
          child.once('exit', (code, signal) => {
            run.exit = { code, signal, atMs: this.env.clock.nowMs() };
            this.onExit(run);
            resolve();
          }),
        ),
      );
      this.children.set(spec.taskId, child);
      this.runs.push(run);
      this.env.onNote(`dispatched ${spec.taskId} (${spec.label}) as pid ${run.pid}`);
    }
    await this.writeState();
  }

  /** A clean exit completes the row; anything else is left for the watchdog to judge. */
  private onExit(run: AgentRun): void {
    const { code, signal } = run.exit!;
    if (code === 0) {
      this.env.onNote(`${run.spec.taskId} exited 0: row marked completed`);
      void this.writeState().catch((e: Error) => this.env.onNote(`writing the state file failed: ${e.message}`));
    } else {
      this.env.onNote(`${run.spec.taskId} exited (${signal ?? `code ${code}`}): row left as is for the watchdog`);
    }
  }

  /** Rewrite state.yaml atomically; writes are serialised so the newest always lands last. */
  writeState(): Promise<void> {
    const iso = (ms: number) => new Date(ms).toISOString();
    const doc = {
      epic_id: this.env.epicId,
      current_wave: {
        wave_id: 1,
        dispatched_at: iso(this.waveDispatchedAtMs),
        tasks: this.runs.map((r) => ({
          task_id: r.spec.taskId,
          ticket_id: r.spec.ticketId,
          title: r.spec.title,
          status: r.exit?.code === 0 ? 'completed' : 'in_progress',
          dispatched_at: iso(r.dispatchedAtMs),
          agent_id: r.agentId,
          session_id: this.env.sessionId,
          pid: r.pid,
          transcript_path: r.transcriptPath,
          ...(r.spec.remainingWork ? { remaining_work: r.spec.remainingWork } : {}),
        })),
      },
    };
    const text = "# Written by the demo's orchestrator role; dispatch-watchdog only reads it.\n" + stringify(doc, { lineWidth: 0 });
    this.writes = this.writes.then(() => writeFileAtomic(this.env.paths.stateFile(this.env.epicId), text));
    return this.writes;
  }

  /** Resolves when every dispatched agent has exited, or after `ms` (false then). */
  async allExited(ms: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
    const done = Promise.all(this.exits).then(() => true as const);
    const r = await Promise.race([done, timeout]);
    clearTimeout(timer);
    await this.writes.catch(() => undefined);
    return r;
  }

  /** Stop every agent this orchestrator started that is still running (cleanup after a failed demo). */
  stopAll(): void {
    for (const child of this.children.values()) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  }
}
