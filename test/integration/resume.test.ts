// Resume instead of restart (DESIGN §8): a transport stall of a known session is recovered by
// resuming that session, keeping its context: a `resume` request (mailbox), or the configured
// agents.resume_argv run with {session_id} (process adapter). Same key, same cap as a redispatch.
import { promises as fs, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdapter } from '../../src/act/agents/make-adapter.js';
import { realClock } from '../../src/deps.js';
import { redispatchRequest } from '../helpers/agent-requests.js';
import { assistant, jsonl, toolResult, toolUse, user } from '../helpers/claude-lines.js';
import { projectDirName } from '../helpers/claude-session.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { fixture, waitFor } from '../helpers/spawn-fixture.js';
import { readEvents, readWatchdogJson, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';
const S = 1000;
const iso = (ms: number) => new Date(ms).toISOString();
const events = (dir: string, name: string) => readEvents(dir).filter((e) => e.event === name);

/** A transcript whose last record is a tool result: the model's answer never came (a frozen stream). */
function frozenTranscript(dir: string, t0: number): string {
  const at = (s: number) => ({ timestamp: iso(t0 + s * S), sessionId: 's-1' });
  const file = path.join(dir, 's-1.jsonl');
  writeFileSync(
    file,
    jsonl(user(0, 'Fix ENG-1', at(0)), assistant(1, [toolUse('tu1', 'Bash', { command: 'npm test' })], at(1)), user(2, [toolResult('tu1', 'ok')], at(2))),
  );
  return file;
}

describe('resume a transport stall', () => {
  it('mailbox: a frozen stream becomes a resume request with the resume prompt and the fresh fallback; a reused row answers it', async () => {
    const dir = tempDir();
    const t0 = Date.parse('2026-04-02T10:00:00Z');
    const clock = new ManualClock(t0 + 2 * S);
    const transcript = frozenTranscript(dir, t0);
    const row = { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(t0), session_id: 's-1', transcript_path: transcript };
    writeWave(dir, EPIC, iso(t0), [row]);
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 60, checkInterval: 10 }, { claudeConfigDir: path.join(dir, 'claude') });
    for (let i = 0; i < 7; i++) await s.advance(10 * S); // one check at a time (a jump would trip the self-lag guard)
    const key = `${EPIC}:t1:redispatch`;
    expect(events(dir, 'stall_detected')).toEqual([expect.objectContaining({ task_id: 't1', action_taken: 'redispatch:resume' })]);
    expect(events(dir, 'action_started')).toEqual([expect.objectContaining({ key, mode: 'resume', transport_cause: 'frozen_stream' })]);
    const rel = `epics/${EPIC}/requests/E-1__t1__redispatch.resume.json`;
    expect(events(dir, 'redispatch')).toEqual([expect.objectContaining({ key, mode: 'resume', recovery_task_id: 't1-r1', request_path: rel })]);
    const req = JSON.parse(readFileSync(path.join(dir, rel), 'utf8'));
    expect(req).toMatchObject({ kind: 'resume', key, session_id: 's-1', transport_cause: 'frozen_stream', redispatch_attempt: 1, recovery_task_id: 't1-r1' });
    expect(req.resume_prompt).toMatch(/^Continue where you left off on ENG-1: the previous request was interrupted/);
    expect(req.prompt).toMatch(/remaining/i); // the fresh recovery prompt, for an agent that cannot be resumed
    expect(req.how_to_answer).toMatch(/resume its session with `resume_prompt`/);
    expect(readWatchdogJson(dir, EPIC).requests).toEqual([expect.objectContaining({ key, kind: 'resume', status: 'pending' })]);

    // The orchestrator resumed the session: same session id, the attempt on the row.
    writeWave(dir, EPIC, iso(t0), [{ ...row, redispatch_count: 1, last_activity_ts: iso(t0 + 70 * S) }]);
    await s.advance(10 * S);
    expect(events(dir, 'request_answered')).toEqual([expect.objectContaining({ key, kind: 'resume', how: 'row_reused' })]);
    s.stop();
    await s.done;
  });

  it('process adapter: agents.resume_argv runs with {session_id} and the resume prompt, once per key', async () => {
    const dir = tempDir();
    const out = path.join(dir, 'argv.ndjson');
    const adapter = createAdapter(
      'process',
      {
        kill_grace_ms: 50,
        redispatch_argv: [process.execPath, fixture('fake-agent.mjs'), out, 'fresh', '{prompt}'],
        resume_argv: [process.execPath, fixture('fake-agent.mjs'), out, '--resume', '{session_id}', '-p', '{prompt}'],
      },
      { clock: realClock },
    );
    const fresh = await redispatchRequest(dir, { sessionId: 's-9' });
    const req = { ...fresh, mode: 'resume' as const, prompt: 'Continue where you left off', fallbackPrompt: fresh.prompt };
    expect(await adapter.redispatch(req)).toMatchObject({ ok: true, pid: expect.any(Number) });
    // The agent may be writing its line as we read: only a whole line (ending in a newline) counts.
    const lines = await waitFor('the resumed agent to start', async () => {
      const text = await fs.readFile(out, 'utf8').catch(() => '');
      return text.endsWith('\n')
        ? text
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l))
        : undefined;
    });
    expect(lines).toEqual([expect.objectContaining({ argv: ['--resume', 's-9', '-p', 'Continue where you left off'], key: 'PROJ-1000:t1:redispatch' })]);
    expect(await adapter.redispatchMarker(req)).toBe('done');
    expect(await adapter.redispatch(req)).toMatchObject({ ok: true, wasAlreadyDone: true });
  });

  it('process adapter: says what to configure when agents.resume_argv is missing', async () => {
    const adapter = createAdapter('process', { kill_grace_ms: 50 }, { clock: realClock });
    const out = await adapter.redispatch({ ...(await redispatchRequest(tempDir())), mode: 'resume' });
    expect(out.detail).toMatchInlineSnapshot(
      `"agents.resume_argv is not set: the process adapter launches resumes from it. Add e.g. ["claude", "--resume", "{session_id}", "-p", "{prompt}"] to watchdog.config.yaml."`,
    );
  });
});

/**
 * A `claude -p` the lead started itself, as 2.1.197 leaves it when its first request froze: the
 * prompt dequeued, the prompt record, nothing after (Claude Code writes its transcript only once
 * that request is sent). Found by its session id under <config>/projects/<cwd>/, as the row names no path.
 */
function promptOnlyTranscript(claudeDir: string, sessionId: string, t0: number, atS: number): void {
  const dir = path.join(claudeDir, 'projects', projectDirName('/work/lead'));
  mkdirSync(dir, { recursive: true });
  const at = { timestamp: iso(t0 + atS * S), sessionId, version: '2.1.197', entrypoint: 'sdk-cli', cwd: '/work/lead' };
  writeFileSync(
    path.join(dir, `${sessionId}.jsonl`),
    jsonl(
      JSON.stringify({ type: 'queue-operation', operation: 'enqueue', timestamp: at.timestamp, sessionId, content: 'WORKER: implement P-1' }),
      JSON.stringify({ type: 'queue-operation', operation: 'dequeue', timestamp: at.timestamp, sessionId }),
      user(atS, 'WORKER: implement P-1', at),
    ),
  );
}

describe('a row naming only its session_id (a claude -p the lead launched with Bash)', () => {
  const sid = '0a173973-e114-48e5-a0a9-5742ad3267ef';
  async function judgeRow(write: (claudeDir: string, t0: number) => void, whenS: number) {
    const dir = tempDir();
    const claudeDir = path.join(dir, 'claude');
    const t0 = Date.parse('2026-04-02T10:00:00Z');
    const clock = new ManualClock(t0);
    writeWave(dir, EPIC, iso(t0), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', dispatched_at: iso(t0), session_id: sid }]);
    // The lead's own session made the project dir already: the worker's file is a new name in it.
    mkdirSync(path.join(claudeDir, 'projects', projectDirName('/work/lead')), { recursive: true });
    const s = await startSession(clock, { epicId: EPIC, stateDir: dir, timeout: 3, checkInterval: 1 }, { claudeConfigDir: claudeDir });
    for (let i = 0; i < 12; i++) {
      if (i === whenS) write(claudeDir, t0);
      await s.advance(S);
    }
    s.stop();
    await s.done;
    return { action: events(dir, 'action_started')[0], stall: events(dir, 'stall_detected')[0] };
  }

  it('its transcript, found by discovery after the first checks, holds only the prompt: a frozen first request, resumed', async () => {
    const { action, stall } = await judgeRow((c, t0) => promptOnlyTranscript(c, sid, t0, 2), 2);
    expect(stall).toMatchObject({ stall_reason: 'inactivity', action_taken: 'redispatch:resume' });
    expect(action).toMatchObject({ mode: 'resume', transport_cause: 'frozen_stream', session_id: sid });
  });

  it('no transcript by the end of the window: it never started, and a session never written has nothing to resume (a fresh agent)', async () => {
    // What the first scripted-lead run with `claude -p` workers met: a 3 s window, and a worker
    // whose start-up (3.15 s at load 3) ended after it; its transcript appeared 0.1 s too late.
    const { action, stall } = await judgeRow((c, t0) => promptOnlyTranscript(c, sid, t0, 4), 4);
    expect(stall).toMatchObject({ stall_reason: 'never_started', action_taken: 'redispatch' });
    expect(stall?.reason).toMatch(/no transcript for session/);
    expect(action).toMatchObject({ action: 'redispatch' });
    expect(action?.mode).not.toBe('resume');
  });
});
