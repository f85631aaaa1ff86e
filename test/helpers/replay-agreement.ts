// Issue 10 cause 8, checked on a recorded transcript: a cold --once (a fresh observer with a 1 KB
// tail read) must reach the loop's verdict (one observer reading as the files grow) at every
// record and 60 s, 121 s and 700 s after it. The session and its subagents' transcripts are
// appended record by record, in time order, to a copy of their layout in a temp dir.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { findChildTranscripts } from '../../src/agents/claude-code/read/replay-files.js';
import type { Task } from '../../src/contracts/state-file.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import type { ReplayInput } from '../../src/agents/claude-code/parse/replay-transcript.js';
import { StatePaths } from '../../src/files/paths.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { createClaudeObserver } from '../../src/agents/claude-code/read/claude-observer.js';
import type { TailOptions } from '../../src/observe/read/tail-file.js';
import { tempDir } from './temp-dir.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

/** The transcript `name` in `dir` and its subagents' transcripts, as `replay` reads them. */
export async function replayInputOf(dir: string, name: string): Promise<ReplayInput> {
  const children = await findChildTranscripts(path.join(dir, name));
  return {
    transcript: { file: name, text: readFileSync(path.join(dir, name), 'utf8') },
    children: children.map((c) => ({ file: path.relative(dir, c), text: readFileSync(c, 'utf8') })),
  };
}

/** Each line's time: its timestamp, else the one before it (leading lines take the first one), as replay does. */
export function lineTimes(text: string): { line: string; atMs: number }[] {
  const lines = text.trim().split('\n');
  const own = lines.map((l) => {
    const ts = (JSON.parse(l) as { timestamp?: unknown }).timestamp;
    return typeof ts === 'string' ? Date.parse(ts) : NaN;
  });
  let last = own.find((t) => Number.isFinite(t)) ?? 0;
  return lines.map((line, i) => {
    if (Number.isFinite(own[i])) last = own[i]!;
    return { line, atMs: last };
  });
}

/**
 * Assert that a cold start and the loop agree at every sampled moment; returns how many were
 * compared. `tail`: the cold observer's tail options (default a 1 KB tail; `{}` the CLI's own).
 */
export async function expectColdAgreesWithLoop(dir: string, name: string, tail: Partial<TailOptions> = { tailBytes: 1024 }): Promise<number> {
  const tmp = tempDir();
  const input = await replayInputOf(dir, name);
  const records = [input.transcript, ...input.children!]
    .flatMap((src) => lineTimes(src.text).map((r, i) => ({ file: path.join(tmp, src.file), ...r, order: i })))
    .sort((a, b) => a.atMs - b.atMs || a.order - b.order);
  for (const r of records) {
    mkdirSync(path.dirname(r.file), { recursive: true });
    writeFileSync(r.file, '');
  }
  const paths = new StatePaths(path.join(tmp, 'state'));
  const observer = () => createClaudeObserver({ paths, claudeConfigDir: path.join(tmp, 'claude'), env: {}, isPersistent: false, tail });
  const loop = observer();
  const task: Task = {
    taskId: 't',
    ticketId: 'T-1',
    status: 'in_progress',
    statusClass: 'in_flight',
    dispatchedAtMs: records[0]!.atMs,
    transcriptPath: path.join(tmp, name),
  };
  const judge = async (o: ReturnType<typeof observer>, nowMs: number) => {
    const v = assess(task, mergeObservations([observeRow(task), ...(await o.observe(task, nowMs))]), DEFAULT_POLICY, nowMs);
    return `${v.kind}/${v.stallReason ?? '-'}/${v.effectiveTimeoutMs}`;
  };
  let compared = 0;
  for (const [i, r] of records.entries()) {
    appendFileSync(r.file, r.line + '\n');
    for (const nowMs of [r.atMs, r.atMs + 60_000, r.atMs + 121_000, r.atMs + 700_000]) {
      const want = await judge(loop, nowMs);
      expect(await judge(observer(), nowMs), `${name} after record ${i + 1} at +${nowMs - r.atMs} ms`).toBe(want);
      compared++;
    }
  }
  expect(compared).toBe(records.length * 4);
  return compared;
}
