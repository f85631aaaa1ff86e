// `dispatch-watchdog demo`: the main job on an embedded default. A temp state dir, three agent
// processes writing Claude Code transcripts, the real watch loop with the process adapter and the
// transcript observer, drawn by the live view `watch` draws (the orchestrator's lines in its feed),
// fitted to the terminal, and a summary that checks the run went as the scenario says.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { probeProcess } from '../sys/proc-identity.js';
import type { DispatchEvent, EventOf } from '../contracts/events.js';
import { WatchdogJsonSchema, type WatchdogJson } from '../contracts/watchdog-json.js';
import { WatchdogError } from '../contracts/errors.js';
import { readDispatchLog } from '../journal/dispatch-log.js';
import { resolveOptions } from '../options.js';
import { runWatch, type WatchDeps } from '../watch.js';
import { realActionDeps, realObservers } from '../wiring.js';
import type { Terminal } from '../deps.js';
import { createWatchView, type WatchView } from '../watch-view.js';
import { fitWidth } from './fit-width.js';
import { DemoOrchestrator } from './orchestrator.js';
import { DEMO_EPIC_ID, DEMO_TIMING, REPLACEMENT_DONE_TEXT, REPLACEMENT_TASK_ID, demoAgents } from './scenario.js';
import { checkDemo, renderSummary, type DemoFacts } from './summary.js';
import { transcriptFacts } from './transcript-facts.js';
import { createWorkspace, interestingFiles, type Workspace } from './workspace.js';

export interface DemoOptions {
  /** Keep the temp dir (it is kept anyway when the demo fails). */
  isKept: boolean;
  /** Where the live view draws: a terminal redraws its table in place; otherwise plain lines. */
  terminal: Terminal;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where the temp dir is made. @defaultValue os.tmpdir() */
  tmpDir?: string;
  /** @defaultValue process.execPath */
  nodePath?: string;
}

const REFRESH_MS = 250;

/** A replacement the watchdog launched, and whether its process is still there. */
interface ReplacementState {
  event: EventOf<'redispatch'>;
  isAlive: boolean;
}

/** Watches what the run leaves on disk, for the closing summary. */
class Monitor {
  doc?: WatchdogJson;
  events: DispatchEvent[] = [];
  replacements: ReplacementState[] = [];
  bashWindowSeen?: { windowSeconds: number; exemptions: string[] };
  private inFlight?: Promise<void>;

  constructor(
    private readonly ws: Workspace,
    private readonly orchestrator: DemoOrchestrator,
  ) {}

  /** Re-read the files and redraw; a tick skips while one is in flight, the final one (`isFinal`) waits for it. */
  async refresh(isFinal = false): Promise<void> {
    if (this.inFlight && !isFinal) return;
    while (this.inFlight) await this.inFlight;
    this.inFlight = this.read();
    try {
      await this.inFlight;
    } finally {
      this.inFlight = undefined;
    }
  }

  private async read(): Promise<void> {
    const text = await fs.readFile(this.ws.paths.watchdogJson(DEMO_EPIC_ID), 'utf8').catch(() => undefined);
    const parsed = text === undefined ? undefined : WatchdogJsonSchema.safeParse(safeJson(text));
    if (parsed?.success) this.doc = parsed.data;
    const log = await readDispatchLog(this.ws.paths, (e) => e.epic_id === DEMO_EPIC_ID);
    this.events = log.events;
    this.replacements = await Promise.all(
      this.events.filter((e): e is EventOf<'redispatch'> => e.event === 'redispatch').map(async (event) => ({ event, isAlive: await isSameAlive(event) })),
    );
    const bash = this.doc?.tasks.find((t) => t.task_id === this.orchestrator.runs.find((r) => r.spec.role === 'long-bash')?.spec.taskId);
    if (bash && bash.exemptions.length > 0 && bash.effective_timeout_seconds > (this.bashWindowSeen?.windowSeconds ?? 0)) {
      this.bashWindowSeen = { windowSeconds: bash.effective_timeout_seconds, exemptions: [...bash.exemptions] };
    }
  }
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** The replacement is still the process we launched (same pid and start time). */
async function isSameAlive(e: EventOf<'redispatch'>): Promise<boolean> {
  if (e.pid === undefined) return false;
  const p = await probeProcess(e.pid);
  return p.kind === 'alive' && (e.start_ticks === undefined || p.identity.startTicks === e.start_ticks);
}

/** Events kept under the demo's table: its frame stays within a 30-line terminal. */
const DEMO_FEED_LINES = 6;

/** The view as the demo drives it: its warnings go to the feed, so nothing else writes between frames. */
function demoView(view: WatchView): WatchView {
  return { ...view, interrupt: () => undefined };
}

/** Run the demo; resolves to 0 when everything went as the scenario expects, else 1. */
export async function runDemo(opts: DemoOptions, deps: WatchDeps): Promise<number> {
  const { clock, output } = deps;
  const nodePath = opts.nodePath ?? process.execPath;
  const ws = await createWorkspace({ tmpDir: opts.tmpDir, nodePath, sessionId: randomUUID() });
  const t0Ms = clock.nowMs();
  const t = DEMO_TIMING;
  // Text is fitted to a terminal's width as it is when written (the view reads it at every redraw).
  const width = () => (opts.terminal.isTty ? Math.max(40, (opts.terminal.columns() ?? 100) - 1) : undefined);
  const say = (text: string) => output.out(fitWidth(text, width()));
  say(
    [
      `dispatch-watchdog demo: epic ${DEMO_EPIC_ID}, 3 agents writing Claude Code transcripts; stall window ${t.stallWindowSeconds} s, checks every ${t.checkIntervalSeconds} s, action redispatch via the process adapter.`,
      `Expect: DEMO-102 goes silent after ~2.5 s and is killed and redispatched; DEMO-103 sits ${t.bashRunsMs / 1000} s in a silent Bash call (timeout ${t.bashTimeoutMs / 1000} s) and is left alone.`,
      `State dir: ${ws.root}`,
      '',
      '',
    ].join('\n'),
  );
  // The live view of the watch itself; the orchestrator's doings join its event feed.
  const view = demoView(createWatchView(output, { epicId: DEMO_EPIC_ID, terminal: opts.terminal, feedLines: DEMO_FEED_LINES }));
  const note = (who: string, text: string) => view.note(`${new Date(clock.nowMs()).toISOString().slice(11, 19)} ${who}: ${text}`, clock.nowMs());
  const orchestrator = new DemoOrchestrator({
    paths: ws.paths,
    epicId: DEMO_EPIC_ID,
    clock,
    nodePath,
    scriptPath: ws.scriptPath,
    plansDir: ws.plansDir,
    projectsDir: ws.projectsDir,
    repoDir: ws.repoDir,
    sessionId: ws.sessionId,
    onNote: (text) => note('orchestrator', text),
  });
  const monitor = new Monitor(ws, orchestrator);

  // The watchdog gets its own env: Claude's config dir inside the demo, and never a Linear key.
  const watchEnv: NodeJS.ProcessEnv = { ...opts.env, CLAUDE_CONFIG_DIR: path.join(ws.root, 'claude') };
  delete watchEnv.LINEAR_API_KEY;
  const giveUp = new AbortController();
  const giveUpTimer = setTimeout(() => giveUp.abort({ signal: 'demo_deadline' }), t.giveUpMs);
  const ticker = setInterval(() => void monitor.refresh().catch(() => undefined), REFRESH_MS);
  const facts: DemoFacts = { epicId: DEMO_EPIC_ID, t0Ms, endMs: t0Ms, events: [], runs: [] };
  try {
    await orchestrator.dispatch(demoAgents(ws.repoDir));
    const watchOpts = await resolveOptions({ epicId: DEMO_EPIC_ID, stateDir: ws.root }, watchEnv, opts.cwd);
    const watchDeps: WatchDeps = {
      clock,
      pid: deps.pid,
      signal: AbortSignal.any([deps.signal, giveUp.signal]),
      // The view draws the events; a warning joins its feed instead of breaking the frame.
      output: { out: (text) => output.out(text), err: (text) => note('watchdog', text.trim()) },
      terminal: opts.terminal,
      view,
      // Transcript evidence (the agents' Claude Code JSONL), as the real CLI wires it.
      makeObservers: deps.makeObservers ?? realObservers(watchEnv),
      ...realActionDeps({ clock, env: watchEnv }),
    };
    facts.watchExitCode = await runWatch(watchOpts, watchDeps);
  } catch (e) {
    facts.watchError = e instanceof WatchdogError ? e.describe() : (e as Error).message;
  } finally {
    clearTimeout(giveUpTimer);
  }
  facts.stopReason = giveUp.signal.aborted ? 'gave_up' : deps.signal.aborted ? 'interrupted' : undefined;
  await orchestrator.allExited(3000);
  clearInterval(ticker);
  await monitor.refresh(true).catch(() => undefined);

  await gatherFacts(facts, ws, orchestrator, monitor);
  facts.endMs = clock.nowMs();
  const checks = checkDemo(facts);
  const ok = checks.every((c) => c.ok);
  const isKept = opts.isKept || !ok;
  const files = await interestingFiles(ws);
  await cleanUp(orchestrator, monitor);
  say(renderSummary(facts, checks, { dir: ws.root, isKept, list: files, columns: width() }));
  if (!isKept) await fs.rm(ws.root, { recursive: true, force: true });
  return ok ? 0 : 1;
}

/** Fill in what the log and the transcripts say about the run. */
async function gatherFacts(facts: DemoFacts, ws: Workspace, orchestrator: DemoOrchestrator, monitor: Monitor): Promise<void> {
  facts.events = monitor.events;
  facts.bashWindowSeen = monitor.bashWindowSeen;
  for (const run of orchestrator.runs) {
    const tf = transcriptFacts(await fs.readFile(run.transcriptPath, 'utf8').catch(() => ''));
    facts.runs.push({
      taskId: run.spec.taskId,
      role: run.spec.role,
      label: run.spec.label,
      pid: run.pid,
      exit: run.exit,
      toolCalls: tf.toolCalls,
      lastRecordMs: tf.lastRecordMs,
    });
    if (run.spec.role === 'long-bash') facts.bashCall = tf.bashCall;
  }
  const replacement = monitor.replacements.find((r) => r.event.recovery_task_id === REPLACEMENT_TASK_ID);
  const log = await fs.readFile(ws.replacementLog, 'utf8').catch(() => '');
  facts.replacement = {
    pid: replacement?.event.pid,
    hasFinished: log.includes(REPLACEMENT_DONE_TEXT),
    isGone: replacement ? !(await isSameAlive(replacement.event)) : false,
    finishedAtMs: log.includes(REPLACEMENT_DONE_TEXT) ? transcriptFacts(log).lastRecordMs : undefined,
  };
}

/** Stop whatever the demo started and is still running: our agents, and a replacement still alive. */
async function cleanUp(orchestrator: DemoOrchestrator, monitor: Monitor): Promise<void> {
  orchestrator.stopAll();
  for (const r of monitor.replacements) {
    if (r.event.pid !== undefined && (await isSameAlive(r.event))) {
      try {
        process.kill(r.event.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}
