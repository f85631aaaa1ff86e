// Telemetry lines (what the OTLP receiver stores) → the judge, as a transcript would be judged:
// an open call widens the window, api_error is retry evidence, a final answer is an inferred
// finish, and the partition rule: no stall while the session's host is silent too.
import { describe, expect, it } from 'vitest';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import type { TelemetryLine } from '../../src/contracts/telemetry.js';
import type { PartialObservation } from '../../src/observe/parse/observation.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { emptyTelemetryState, parseTelemetryLine, summarizeTelemetry } from '../../src/observe/parse/parse-telemetry.js';
import { makeTask, T0 } from '../helpers/builders.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const S = 1000;
type Ev = Partial<TelemetryLine> & { event: TelemetryLine['event']; at: number };
/** The telemetry part of events at T0 + `at` seconds, received when they happened, from host h1 last heard at `hostHeardS`. */
function telemetry(events: Ev[], hostHeardS?: number): PartialObservation {
  const s = emptyTelemetryState();
  events.forEach(({ at, ...e }, i) => {
    const d = parseTelemetryLine(s, JSON.stringify({ ts: new Date(T0 + at * S).toISOString(), rx: T0 + at * S, host: 'h1', ...e }), 'f', {
      lineNo: i + 1,
      offset: 0,
    } as never);
    expect(d).toBeUndefined();
  });
  const part = summarizeTelemetry(s);
  part.telemetry = { host: 'h1', sessionReceivedMs: s.lastReceivedMs!, hostHeardMs: hostHeardS === undefined ? undefined : T0 + hostHeardS * S };
  return part;
}
const judge = (part: PartialObservation, atS: number) => {
  const task = makeTask({ sessionId: 's1' });
  return assess(task, mergeObservations([observeRow(task), part]), DEFAULT_POLICY, T0 + atS * S);
};
const bash = (at: number, extra: Partial<TelemetryLine> = {}): Ev => ({
  event: 'tool_decision',
  at,
  tool_name: 'Bash',
  tool_use_id: 'tu1',
  decision: 'accept',
  command: 'make',
  ...extra,
});

describe('telemetry judged like a transcript', () => {
  it('every event is progress; silence past the window is a stall once the host is heard after it', () => {
    const part = telemetry([{ event: 'user_prompt', at: 0 }, bash(1), { event: 'tool_result', at: 5, tool_use_id: 'tu1', success: true }], 200);
    expect(part).toMatchObject({ source: 'telemetry', lastProgressMs: T0 + 5 * S, lastTool: { name: 'Bash', isOpen: false, isOpenKnown: true } });
    expect(judge(part, 120).kind).toBe('healthy');
    const v = judge(part, 126);
    expect(v).toMatchObject({ kind: 'stalled', stallReason: 'inactivity', sources: ['telemetry'], transportCause: 'frozen_stream' });
  });

  it('an open call widens the window like an open transcript call', () => {
    const part = telemetry([bash(0, { timeout_ms: 600_000 })], 600);
    expect(judge(part, 600)).toMatchObject({ kind: 'healthy', exemptions: expect.arrayContaining(['bash_long_timeout']) });
    expect(judge(part, 661).kind).toBe('stalled');
  });

  it('api_error is retry evidence (the window doubles) until a request goes through', () => {
    const retrying = telemetry(
      [
        { event: 'user_prompt', at: 0 },
        { event: 'api_error', at: 1, attempt: 3, status_code: '529' },
      ],
      500,
    );
    expect(retrying.isApiRetrying).toBe(true);
    expect(judge(retrying, 200)).toMatchObject({ kind: 'healthy', exemptions: ['rate_limit'] });
    expect(judge(retrying, 242).kind).toBe('stalled');
    const through = telemetry([{ event: 'api_error', at: 1 }, { event: 'api_request', at: 9 }, bash(10)], 500);
    expect(through.isApiRetrying).toBeUndefined();
  });

  it('a final answer with no call after it is an inferred finish, counted after a whole window', () => {
    const part = telemetry(
      [bash(0), { event: 'tool_result', at: 2, tool_use_id: 'tu1', success: true }, { event: 'api_request', at: 3 }, { event: 'assistant_response', at: 3 }],
      500,
    );
    expect(part.finished).toMatchObject({ isInferred: true });
    expect(judge(part, 100).kind).toBe('healthy');
    expect(judge(part, 124)).toMatchObject({ kind: 'inconsistent', reason: expect.stringMatching(/^agent finished \(final answer/) });
    // The api_request of a tool-use turn comes after its tool_decision: the open call is no finish.
    expect(telemetry([bash(0), { event: 'api_request', at: 0.05 }], 500).finished).toBeUndefined();
  });

  it('a failed tool result is an error for loop detection', () => {
    const part = telemetry([bash(0), { event: 'tool_result', at: 1, tool_use_id: 'tu1', success: false, error: 'exit 1' }], 500);
    expect(part.recentCalls?.[0]).toMatchObject({ isOpen: false, error: 'exit 1' });
  });
});

describe('the partition rule', () => {
  const events: Ev[] = [{ event: 'user_prompt', at: 0 }, bash(1), { event: 'tool_result', at: 5, tool_use_id: 'tu1', success: true }];
  it('no stall while the receiver has heard nothing from the host since the session went quiet', () => {
    const v = judge(telemetry(events, 5), 300);
    expect(v.kind).toBe('unknown');
    expect(v.reason).toMatch(
      /^no progress for 295s, but the receiver has heard nothing at all from host h1 since 2026-04-02T10:00:05Z: a network partition looks the same as a stall/,
    );
    expect(judge(telemetry(events, undefined), 300).kind).toBe('unknown');
  });

  it('no stall when the host was heard after the silence began but not within the window', () => {
    expect(judge(telemetry(events, 20), 300).kind).toBe('unknown');
    expect(judge(telemetry(events, 200), 300).kind).toBe('stalled');
  });

  it('does not hold a session this machine also sees locally', () => {
    const task = makeTask({ sessionId: 's1' });
    const local: PartialObservation = { source: 'hooks', lastProgressMs: T0 + 5 * S };
    expect(assess(task, mergeObservations([observeRow(task), telemetry(events, 5), local]), DEFAULT_POLICY, T0 + 300 * S).kind).toBe('stalled');
  });

  it('a give-up is never held by it (positive evidence, not a silence)', () => {
    const task = makeTask({ sessionId: 's1' });
    const failed: PartialObservation = { ...telemetry(events, 5), failed: { kind: 'overloaded', atMs: T0 + 5 * S } };
    expect(assess(task, mergeObservations([observeRow(task), failed]), DEFAULT_POLICY, T0 + 300 * S)).toMatchObject({
      kind: 'stalled',
      stallReason: 'api_gave_up',
    });
  });
});
