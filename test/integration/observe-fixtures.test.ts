// The parser and assess() on real Claude Code data (shared/fixtures/claude-code, read in place).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assess } from '../../src/core/assess.js';
import type { Task } from '../../src/contracts/state-file.js';
import { buildHookLine } from '../../src/agents/claude-code/parse/hook-line.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { emptyHookState, parseHookLine, summarizeHooks } from '../../src/agents/claude-code/parse/parse-hook-activity.js';
import { childCompletion, parseTranscriptText, runningTasks, summarizeTranscript } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { CLAUDE_FIXTURES, hasClaudeFixtures } from '../helpers/shared-fixtures.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const FIXTURES = CLAUDE_FIXTURES;
const hasFixtures = hasClaudeFixtures;

const linesOf = (name: string) =>
  readFileSync(path.join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((l) => l !== '');
const timeOf = (line: string) => Date.parse((JSON.parse(line) as { timestamp: string }).timestamp);
const prefix = (lines: string[], n: number) => parseTranscriptText(lines.slice(0, n).join('\n') + '\n').state;

const task = (over: Partial<Task> = {}): Task => ({ taskId: 't1', ticketId: 'PROJ-1', status: 'in_progress', statusClass: 'in_flight', ...over });

/** The verdict for a task whose only evidence is the first `n` lines, judged at `nowMs`. */
function verdictAfter(lines: string[], n: number, nowMs: number, t = task({ dispatchedAtMs: timeOf(lines[0]!) - 1000 })) {
  const obs = mergeObservations([observeRow(t), summarizeTranscript(prefix(lines, n))]);
  return assess(t, obs, DEFAULT_POLICY, nowMs);
}

describe.skipIf(!hasFixtures)(`real Claude Code fixtures (${FIXTURES}; skipped when the shared fixtures are absent)`, () => {
  const jsonlFiles = hasFixtures ? readdirSync(FIXTURES).filter((f) => f.endsWith('.jsonl')) : [];

  it.each(jsonlFiles)('%s parses: every line is a record, no diagnostics', (name) => {
    const text = readFileSync(path.join(FIXTURES, name), 'utf8');
    const { state, diagnostics } = parseTranscriptText(text, name);
    expect(diagnostics).toEqual([]);
    expect(state.records).toBe(text.split('\n').filter((l) => l.trim() !== '').length);
    expect(state.lastEventMs).toBeGreaterThan(Date.parse('2026-01-01T00:00:00Z'));
  });

  it.each(hasFixtures ? readdirSync(path.join(FIXTURES, 'hooks')) : [])('hooks/%s: every payload becomes one activity line', (name) => {
    const payloads = JSON.parse(readFileSync(path.join(FIXTURES, 'hooks', name), 'utf8')) as unknown[];
    const state = emptyHookState();
    for (const [i, p] of payloads.entries()) {
      const built = buildHookLine(p, Date.parse('2026-02-12T10:00:00Z') + i * 1000);
      expect(built, `${name}[${i}]`).toBeDefined();
      expect(parseHookLine(state, JSON.stringify(built!.line), name, { offset: 0 })).toBeUndefined();
    }
    expect(summarizeHooks(state).lastProgressMs).toBe(Date.parse('2026-02-12T10:00:00Z') + (payloads.length - 1) * 1000);
  });

  describe('background Bash episode (transcript-v2.1.39-bash-background.jsonl, lines 1-9)', () => {
    // Line 10 (the task-notification user line) was copied from ~1000 lines later in the source
    // session; the gap before it is an artefact of the excerpt, so the episode is lines 1-9.
    const lines = hasFixtures ? linesOf('transcript-v2.1.39-bash-background.jsonl') : [];

    it.each([1, 2, 3, 4, 5, 6, 7, 8])('is not a stall just before line %i + 1 arrives', (n) => {
      const v = verdictAfter(lines, n, timeOf(lines[n]!) - 1);
      expect(v.kind, v.reason).toBe('healthy');
    });

    it('sees the open Bash (timeout 60 s), then the TaskOutput wait (timeout 180 s) with its exemption', () => {
      const bash = summarizeTranscript(prefix(lines, 4));
      expect(bash.lastTool).toMatchObject({
        name: 'Bash',
        isOpen: true,
        timeoutMs: 60000,
        command: 'mix test test/spotter_web/live/session_live_test.exs 2>&1',
      });
      expect(bash.lastProgressMs).toBe(timeOf(lines[3]!)); // the third bash_progress line
      const waiting = verdictAfter(lines, 7, timeOf(lines[6]!) + 150_000);
      expect(waiting.kind, waiting.reason).toBe('healthy');
      expect(waiting.exemptions).toContain('open_tool_call');
      expect(waiting.effectiveTimeoutMs).toBe(240_000);
    });

    it('tracks the background task from its launch to its completion', () => {
      expect(runningTasks(prefix(lines, 5))).toEqual(['b7636e2']);
      expect(runningTasks(prefix(lines, 9))).toEqual([]);
    });
  });

  describe('silent final answer (transcript-v2.1.39-subagent-agent-a93ccab.jsonl and its parent)', () => {
    const sub = hasFixtures ? linesOf('transcript-v2.1.39-subagent-agent-a93ccab.jsonl') : [];
    const parent = hasFixtures ? linesOf('transcript-v2.1.39-parent-task-subagent.jsonl') : [];
    const subTask = () => task({ agentId: 'a93ccab', dispatchedAtMs: timeOf(sub[0]!) });

    it('34 s without a tool call while writing the final report is not a stall', () => {
      const lastResult = timeOf(sub[9]!);
      const finalText = timeOf(sub[10]!);
      expect(finalText - lastResult).toBeGreaterThan(33_000);
      const v = verdictAfter(sub, 10, finalText - 1, subTask());
      expect(v.kind, v.reason).toBe('healthy');
    });

    it.each([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])('the subagent is healthy just before line %i + 1', (n) => {
      const v = verdictAfter(sub, n, timeOf(sub[n]!) - 1, subTask());
      expect(v.kind, v.reason).toBe('healthy');
    });

    it('the parent stays alive through agent_progress lines while its Task call is open', () => {
      for (let n = 2; n < parent.length - 1; n++) {
        const v = verdictAfter(parent, n, timeOf(parent[n]!) - 1);
        expect(v.kind, `before line ${n + 1}: ${v.reason}`).toBe('healthy');
      }
      expect(summarizeTranscript(prefix(parent, 8)).lastTool).toMatchObject({ name: 'Task', isOpen: true });
    });

    it("the parent's Task result reports the subagent completed", () => {
      const state = prefix(parent, parent.length);
      expect(childCompletion(state, 'a93ccab')).toEqual({ atMs: timeOf(parent.at(-1)!) });
      expect(summarizeTranscript(state).lastTool).toMatchObject({ name: 'Task', isOpen: false });
    });
  });

  it('misc records: compaction is liveness', () => {
    const lines = linesOf('transcript-v2.1.39-misc-records.jsonl');
    const compact = summarizeTranscript(prefix(lines, 6));
    expect(compact.lastProgressMs).toBe(Date.parse('2026-02-12T20:30:28.504Z'));
    expect(prefix(lines, 7).compactedAtMs).toBe(Date.parse('2026-02-12T20:30:28.504Z'));
  });

  it('2.1.101: attachment records are liveness; queue operations are not', () => {
    const lines = linesOf('transcript-v2.1.101-excerpt.jsonl');
    const part = summarizeTranscript(prefix(lines, lines.length));
    expect(part.lastProgressMs).toBe(Date.parse('2026-04-16T18:51:33.664Z'));
    expect(part.lastTool).toMatchObject({ name: 'Bash', isOpen: false });
    expect(summarizeTranscript(prefix(lines, 2)).lastProgressMs).toBeUndefined();
  });
});
