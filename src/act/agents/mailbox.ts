// mailbox adapter (the default, needs no config): writes request files under epics/<id>/requests/ for
// the orchestrator to act on. The request file is the side-effect marker; it is created exactly once.
import { promises as fs } from 'node:fs';
import { howToAnswer } from '../../contracts/request.js';
import { harnessOf } from '../../agents/harnesses.js';
import { fillCommandLine } from '../../agents/harness.js';
import { msToIso } from '../../contracts/time.js';
import type { Request } from '../../contracts/request.js';
import { createFileExclusive, readOwnFile } from '../../files/atomic-write.js';
import type { AdapterOp } from '../../contracts/vocabulary.js';
import type { AdapterDeps, AgentAdapter, CancelRequest, MarkerState, NudgeRequest, RedispatchRequest } from './adapter.js';
import { ioFailure, succeeded } from './outcome.js';
import { stepFile } from './step-file.js';
import { checkRequestPid } from './request-pid.js';
import { isCodexRow } from '../../agents/codex/row.js';

/** The JSON in `epics/<epic>/requests/<key>.<kind>.json` (schema: contracts/request.ts). */
export type MailboxRequest = Request;

/** Path of the request file for one step of one key. */
export function requestFile(req: CancelRequest, kind: MailboxRequest['kind']): string {
  return stepFile(req.paths.requestsDir(req.epicId), req.key, kind);
}

/** The request an orchestrator gets: pure, from the executor's request, the time and the answer deadline. */
export function buildMailboxRequest(req: CancelRequest | RedispatchRequest, kind: MailboxRequest['kind'], nowMs: number, deadlineMs?: number): MailboxRequest {
  const t = req.task;
  const out: MailboxRequest = {
    schema_version: '1',
    kind,
    key: req.key,
    epic_id: req.epicId,
    task_id: t.taskId,
    row_task_id: t.rowTaskId,
    ...(t.unansweredRequest?.startedTaskId ? { stop_task_id: t.unansweredRequest.startedTaskId, stop_row_task_id: t.unansweredRequest.startedRowTaskId } : {}),
    ticket_id: t.ticketId,
    agent_id: t.agentId,
    agent_name: t.agentName,
    team_name: t.teamName,
    session_id: t.sessionId,
    pid: t.pid,
    ...(isCodexRow(t) ? { agent: 'codex' } : {}),
    reason: req.reason,
    created_at: msToIso(nowMs),
  };
  if (kind === 'redispatch' && 'prompt' in req) {
    Object.assign(out, { redispatch_attempt: req.attempt, recovery_task_id: req.recoveryTaskId, checkpoint_path: req.checkpointPath, prompt: req.prompt });
  }
  if (kind === 'resume' && 'prompt' in req) {
    // `prompt` keeps its meaning (a fresh agent's prompt): the fallback when the session cannot be resumed.
    Object.assign(out, {
      redispatch_attempt: req.attempt,
      recovery_task_id: req.recoveryTaskId,
      checkpoint_path: req.checkpointPath,
      prompt: req.fallbackPrompt ?? req.prompt,
      resume_prompt: req.prompt,
      transport_cause: req.transportCause,
    });
  }
  if (req.requestFields) Object.assign(out, req.requestFields);
  // The command to paste, every value quoted (a prompt naming a state dir with `$(…)` runs nothing).
  const resumeText = kind === 'resume' ? out.resume_prompt : kind === 'nudge' && out.route === 'resume' ? out.message : undefined;
  const harness = harnessOf(t);
  if (out.session_id && resumeText !== undefined && harness) {
    const template = kind === 'nudge' ? harness.commands.nudge : harness.commands.resume;
    out.resume_command = fillCommandLine(template, { session_id: out.session_id, prompt: resumeText });
  }
  if (deadlineMs !== undefined) {
    out.answer_by = msToIso(nowMs + deadlineMs);
    out.how_to_answer = howToAnswer(kind, out, harness?.wording.stopHint);
  }
  return JSON.parse(JSON.stringify(out)) as MailboxRequest; // drops undefined fields
}

/** The answer deadline written in an existing request file (a resumed step reports the original one). */
async function answerByOf(file: string): Promise<string | undefined> {
  try {
    const v = (JSON.parse(await readOwnFile(file)) as { answer_by?: unknown }).answer_by;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** `done` when the request file exists, else `absent`. */
export async function requestMarker(req: CancelRequest, kind: MailboxRequest['kind']): Promise<MarkerState> {
  try {
    await fs.access(requestFile(req, kind));
    return 'done';
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'unknown';
  }
}

/** Write the request file once; a second call finds it and does nothing. */
export async function writeRequest(
  req: CancelRequest | RedispatchRequest,
  kind: MailboxRequest['kind'],
  deps: AdapterDeps,
  adapter: AgentAdapter['name'] = 'mailbox',
) {
  const file = requestFile(req, kind);
  const rel = req.paths.relative(file);
  try {
    const nowMs = deps.clock.nowMs();
    // The pid only when it is provably the agent (request-pid.ts): a lead may `kill` it literally.
    const request = await checkRequestPid(
      buildMailboxRequest(req, kind, nowMs, deps.requestDeadlineMs),
      req.task,
      (req as CancelRequest).expectedProcess ?? req.task.expectedProcess,
    );
    const created = await createFileExclusive(file, JSON.stringify(request, null, 2) + '\n');
    const answerBy = created ? request.answer_by : ((await answerByOf(file)) ?? request.answer_by);
    const lifecycle = { markerPath: file, requestPath: rel, answerBy };
    const op = opOf(kind);
    return created
      ? succeeded(op, adapter, `${kind} request written to ${rel}.`, lifecycle)
      : succeeded(op, adapter, `${kind} request ${rel} already existed; not written again.`, { ...lifecycle, wasAlreadyDone: true });
  } catch (e) {
    return ioFailure(opOf(kind), adapter, `writing ${rel}`, e, file);
  }
}

/** The adapter step a request kind carries out (a resume is a redispatch that keeps the session). */
const opOf = (kind: MailboxRequest['kind']): AdapterOp => (kind === 'cancel' || kind === 'reconcile' ? 'cancel' : kind === 'nudge' ? 'nudge' : 'redispatch');

/** The request kind of a redispatch: `resume` when it resumes the agent's own session. */
export const launchKindOf = (req: RedispatchRequest): MailboxRequest['kind'] => (req.mode === 'resume' ? 'resume' : 'redispatch');

/** A nudge for the orchestrator to send (mailbox, and claude-team's resume route). */
export function writeNudgeRequest(req: NudgeRequest, deps: AdapterDeps, adapter: AgentAdapter['name'] = 'mailbox') {
  return writeRequest({ ...req, requestFields: { ...req.requestFields, route: req.route, message: req.message } }, 'nudge', deps, adapter);
}

/** The mailbox adapter: request files are both the side effect and its marker. */
export function createMailboxAdapter(deps: AdapterDeps): AgentAdapter {
  return {
    name: 'mailbox',
    cancel: (req) => writeRequest(req, 'cancel', deps),
    cancelMarker: (req) => requestMarker(req, 'cancel'),
    redispatch: (req) => writeRequest(req, launchKindOf(req), deps),
    redispatchMarker: (req) => requestMarker(req, launchKindOf(req)),
    nudge: (req) => writeNudgeRequest(req, deps),
    nudgeMarker: (req) => requestMarker(req, 'nudge'),
  };
}
