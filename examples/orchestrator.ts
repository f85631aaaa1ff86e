// A complete orchestrator for dispatch-watchdog, in TypeScript (docs/orchestrator.md, "A TypeScript
// consumer"). It dispatches one `claude -p` per ticket, keeps the epic state file, and loops on
// `dispatch-watchdog next`: it stops a stalled agent, launches the replacement with the prompt the
// request carries, records the replacement's row, and marks escalated tickets blocked.
//
//   node orchestrator.js --epic-id PROJ-1000 --tickets tickets.json [--state-dir .onex_state]
//        [--claude claude] [--watchdog dispatch-watchdog] [-- <more flags for next, e.g. --timeout 300>]
//
// tickets.json: [{ "ticket_id": "PROJ-1001", "prompt": "Implement PROJ-1001: …" }, …]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { openSync, closeSync, mkdirSync, renameSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { NextDocSchema, RequestSchema, type NextDoc, type Request as WatchdogRequest } from 'dispatch-watchdog';

/** One row of the epic state file (docs/state-files.md); we write it, the watchdog only reads it. */
interface Row {
  task_id: string;
  ticket_id: string;
  status: 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'blocked';
  dispatched_at: string;
  pid?: number;
  /** The session we gave it (--session-id): a stall of its link to the API resumes it (`kind: resume`). */
  session_id: string;
  /** The agent's stream-json output: the watchdog reads it to see progress. */
  transcript_path: string;
  redispatch_count?: number;
}

const { values, positionals } = parseArgs({
  options: {
    'epic-id': { type: 'string' },
    tickets: { type: 'string' },
    'state-dir': { type: 'string', default: process.env.ONEX_STATE_DIR || '.onex_state' },
    claude: { type: 'string', default: 'claude' },
    watchdog: { type: 'string', default: 'dispatch-watchdog' },
  },
  allowPositionals: true,
});
const epicId = values['epic-id'];
if (!epicId || !values.tickets) {
  console.error('usage: orchestrator --epic-id ID --tickets tickets.json [--state-dir DIR] [--claude CMD] [--watchdog CMD] [-- next flags]');
  process.exit(2);
}
const stateDir = path.resolve(values['state-dir']!);
const outDir = path.join(stateDir, 'orchestrator', epicId, 'out');
mkdirSync(outDir, { recursive: true });
const log = (text: string) => console.log(`[orchestrator] ${text}`);

const waveDispatchedAt = new Date().toISOString();
const rows: Row[] = [];
const agents = new Map<string, ChildProcess>();

/** Write the whole state file atomically (temp + rename): the watchdog never sees half a file. */
function writeState(): void {
  const file = path.join(stateDir, 'epics', epicId!, 'state.yaml');
  mkdirSync(path.dirname(file), { recursive: true });
  // JSON is YAML: no YAML library needed.
  const doc = { epic_id: epicId, current_wave: { wave_id: 1, dispatched_at: waveDispatchedAt, tasks: rows } };
  writeFileSync(`${file}.tmp`, JSON.stringify(doc, null, 2) + '\n');
  renameSync(`${file}.tmp`, file);
}

/** Start `claude -p <prompt>` for a task in a session of ours (or `claude --resume <session> -p <prompt>`) and add its row. */
function launch(taskId: string, ticketId: string, prompt: string, attempt = 0, resumeSession?: string): Row {
  const transcript = path.join(outDir, `${taskId}.jsonl`);
  const out = openSync(transcript, 'a');
  const session = resumeSession ?? randomUUID();
  const flags = resumeSession ? ['--resume', session] : ['--session-id', session];
  const child = spawn(values.claude!, [...flags, '-p', prompt, '--output-format', 'stream-json', '--verbose'], { stdio: ['ignore', out, 'inherit'] });
  closeSync(out);
  const row: Row = {
    task_id: taskId,
    ticket_id: ticketId,
    status: 'in_progress',
    dispatched_at: new Date().toISOString(),
    pid: child.pid,
    session_id: session,
    transcript_path: transcript,
  };
  if (attempt > 0) row.redispatch_count = attempt;
  rows.push(row);
  agents.set(taskId, child);
  child.on('exit', (code) => {
    agents.delete(taskId);
    // A row we cancelled or blocked stays so; otherwise the exit code says how it ended.
    if (row.status === 'in_progress') row.status = code === 0 ? 'completed' : 'failed';
    log(`${taskId} exited (${code ?? 'signal'}): ${row.status}`);
    writeState();
  });
  log(`launched ${taskId} (${ticketId}) pid ${child.pid}`);
  return row;
}

/** Stop a task's agent (SIGTERM) and give its row a final status. */
function stop(taskId: string, status: 'cancelled' | 'blocked'): void {
  const row = rows.find((r) => r.task_id === taskId);
  if (row && (row.status === 'in_progress' || status === 'blocked')) row.status = status;
  agents.get(taskId)?.kill('SIGTERM');
}

const handled = new Set<string>();

/** Carry out one request; each key is acted on once. The rows we write are the answer. */
function carryOut(req: WatchdogRequest): void {
  if (handled.has(req.key)) return;
  handled.add(req.key);
  const row = req.row_task_id ?? req.task_id;
  if (req.kind === 'cancel') {
    log(`cancel ${row}: ${req.reason ?? ''}`);
    stop(row, 'cancelled');
  } else if (req.kind === 'nudge' || req.kind === 'reconcile') {
    // Never a stop. Our rows already say how each agent ended (its exit code), so there is no
    // disagreement to fix by hand and no turn to continue: say so with ack.
    log(`${req.kind} ${row}: ${req.message ?? req.what_disagrees ?? ''}; acknowledged`);
    spawnSync(values.watchdog!, ['ack', req.key, '--state-dir', stateDir], { stdio: 'inherit' });
  } else {
    // A resume continues the stalled session (its context intact); without a session, a fresh agent.
    const session = req.kind === 'resume' ? req.session_id : undefined;
    log(`${session ? 'resume' : 'redispatch'} ${row} as ${req.recovery_task_id} (attempt ${req.redispatch_attempt}): ${req.reason ?? ''}`);
    stop(row, 'cancelled');
    launch(req.recovery_task_id!, req.ticket_id, session ? req.resume_prompt! : req.prompt!, req.redispatch_attempt, session);
  }
  writeState();
}

/** Run `dispatch-watchdog next` once; resolves with its exit and its JSON document. */
function next(): Promise<{ code: number | null; signal: NodeJS.Signals | null; doc?: NextDoc; stderr: string }> {
  const args = ['next', '--epic-id', epicId!, '--state-dir', stateDir, '--json', ...positionals];
  const child = spawn(values.watchdog!, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  log(`next pid ${child.pid}`);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stderr, doc: parseDoc(stdout) })));
}

/** The document `next` printed; undefined when it printed none, or was killed while printing. */
function parseDoc(stdout: string): NextDoc | undefined {
  try {
    return NextDocSchema.parse(JSON.parse(stdout));
  } catch {
    return undefined;
  }
}

// Dispatch the wave, then follow the watchdog until it says the wave is complete.
const tickets = JSON.parse(readFileSync(values.tickets!, 'utf8')) as { ticket_id: string; prompt: string }[];
for (const [i, t] of tickets.entries()) launch(`t${i + 1}`, t.ticket_id, t.prompt);
writeState();

for (;;) {
  const r = await next();
  if (r.signal) {
    // Killed (a crash, an OOM kill): its journal makes a restart safe, so run it again. What it
    // printed before dying may already count as told: act on it first.
    log(`next was killed by ${r.signal}; running it again`);
    if (!r.doc) continue;
  }
  if (!r.doc) {
    log(`next failed (exit ${r.code}): ${r.stderr.trim()}`);
    process.exit(1);
  }
  // Handle every list whatever the exit code: several things can happen in one run.
  for (const req of r.doc.requests) carryOut(req);
  // A pending request we never saw (our last run died before reading it) is read from its file.
  for (const p of r.doc.pending) if (!handled.has(p.key)) carryOut(RequestSchema.parse(JSON.parse(readFileSync(path.join(stateDir, p.path), 'utf8'))));
  for (const u of r.doc.unanswered) log(`unanswered past its deadline: ${u.key}`);
  for (const a of r.doc.attention) log(`needs a person (${a.kind}): ${a.detail}. ${a.what_to_do}`);
  for (const e of r.doc.escalations) {
    log(`escalated ${e.ticket_id} (${e.task_id}): tracker ${e.tracker}, friction note ${e.friction_path}`);
    stop(e.task_id, 'blocked');
    writeState();
  }
  if (r.code === 0 && !r.signal) break; // wave_complete
}
log(`wave complete: ${rows.map((r) => `${r.task_id}=${r.status}`).join(' ')}`);
