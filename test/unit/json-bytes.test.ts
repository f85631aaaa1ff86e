import { describe, expect, it } from 'vitest';
import type { WatchdogJson } from '../../src/contracts/watchdog-json.js';
import type { Verdict } from '../../src/core/assess.js';
import { emptyHistory } from '../../src/core/history.js';
import type { Plan } from '../../src/core/plan.js';
import { buildWatchdogJson, RowTexts } from '../../src/core/report.js';
import { JsonBytes } from '../../src/files/json-bytes.js';
import { makeTask, reportMeta } from '../helpers/builders.js';

const entry = (i: number) => ({
  task_id: `t${i}`,
  ticket_id: `PROJ-${i}`,
  status: 'in_progress',
  verdict: i % 7 === 0 ? 'stalled' : 'healthy',
  idle_seconds: i % 5 === 0 ? null : i,
  effective_timeout_seconds: 600,
  exemptions: i % 3 === 0 ? ['rate_limit'] : [],
  last_tool: i % 4 === 0 ? null : 'Read',
  sources: ['row', 'transcript'],
  reason: `active ${i}s ago (window 600s) — “quoted” \\ "x" \n ${'é'.repeat(i % 3)}${i % 11 === 0 ? '😀\ud800' : ''}`,
  unobserved_children: i % 13 === 0 ? undefined : i % 17 === 0 ? ['a1'] : undefined,
});

/** A document shaped like watchdog.json, with `n` tasks. */
const doc = (n: number) => ({
  schema_version: '1.1',
  epic_id: 'E-1',
  skipped: undefined,
  fn: () => 1,
  stalls_detected: Array.from({ length: Math.floor(n / 7) }, (_, i) => entry(i * 7)),
  healthy_tasks: Array.from({ length: n }, (_, i) => `t${i}`),
  holes: [1, undefined, () => 2, null],
  tasks: Array.from({ length: n }, (_, i) => entry(i)),
  summary: { total_tasks: n, healthy: n - 1, nested: { deep: [undefined, 'x'] } },
});

describe('JsonBytes', () => {
  it.each([0, 1, 63, 64, 65, 128, 129, 1000])('gives exactly JSON.stringify(doc) + newline, %i tasks', (n) => {
    const d = doc(n);
    const bytes = new JsonBytes(16).encode(d);
    expect(bytes.toString('utf8')).toBe(JSON.stringify(d) + '\n');
    expect(bytes.length).toBe(Buffer.byteLength(JSON.stringify(d) + '\n'));
  });

  it('reuses its buffer: a smaller document after a larger one is whole and alone', () => {
    const enc = new JsonBytes(16);
    const big = enc.encode(doc(500)).toString('utf8');
    expect(big).toBe(JSON.stringify(doc(500)) + '\n');
    const small = enc.encode(doc(3));
    expect(small.toString('utf8')).toBe(JSON.stringify(doc(3)) + '\n');
    // Long arrays of arrays and of long arrays: each piece's brackets are its own.
    const nested = { rows: Array.from({ length: 200 }, (_, i) => Array.from({ length: i % 70 }, (_, k) => k)) };
    expect(enc.encode(nested).toString('utf8')).toBe(JSON.stringify(nested) + '\n');
    expect(enc.encode({}).toString('utf8')).toBe('{}\n');
  });
});

describe("watchdog.json's row texts kept between checks (RowTexts)", () => {
  const meta = reportMeta(Date.parse('2026-12-06T10:00:00Z'));
  const plan = { events: [], actions: [], stalls: new Map(), isMassStall: false } as unknown as Plan;
  /** A check's rows: `round` moves every idle time and reason; a `changed` row differs in one other field too (which one by its index). */
  function rowsOf(n: number, round: number, changed: (i: number) => boolean) {
    const field = (i: number) => (changed(i) ? i % 9 : -1);
    const tasks = Array.from({ length: n }, (_, i) =>
      makeTask({
        taskId: `t${i}`,
        ticketId: `P-${i}`,
        ...(i % 10 === 0 || field(i) === 7 ? { rowTaskId: field(i) === 7 ? `s${i}` : `r${i}` } : {}),
        status: field(i) === 0 ? 'blocked' : 'in_progress',
      }),
    );
    const verdicts = tasks.map(
      (t, i) =>
        ({
          taskId: t.taskId,
          ticketId: t.ticketId,
          kind: field(i) === 8 ? 'blocked' : i % 7 === 0 ? 'stalled' : i % 11 === 0 ? 'terminal' : 'healthy',
          idleMs: i % 5 === 0 ? undefined : (i + round) * 1000,
          effectiveTimeoutMs: field(i) === 1 ? 240_000 : 120_000,
          exemptions: field(i) === 2 ? ['open_tool_call'] : i % 3 === 0 ? ['rate_limit'] : [],
          lastTool: field(i) === 3 ? 'Bash' : i % 4 === 0 ? undefined : 'Read',
          sources: field(i) === 4 ? ['row', 'transcript', 'hooks'] : ['row', 'transcript'],
          reason: `active ${i + round}s ago — “quoted” \\ "x" \n ${'é'.repeat(i % 3)}${i % 13 === 0 ? '😀\ud800' : ''}`,
          ...(i % 17 === 0 || field(i) === 5 ? { unobservedChildren: field(i) === 5 ? ['a1', 'a2'] : ['a1'] } : {}),
          ...(i % 2 === 0 || field(i) === 6 ? { agentVersion: field(i) === 6 ? '2.1.332' : '2.1.197' } : {}),
        }) as unknown as Verdict,
    );
    return buildWatchdogJson(tasks, verdicts, plan, emptyHistory(), meta);
  }

  it('writes exactly JSON.stringify of the document, check after check, as rows change, come and go', () => {
    const rows = new RowTexts();
    const enc = new JsonBytes();
    // Every field but the two a steady check moves changes alone on some row (round 2), then back on some.
    const checks = [
      rowsOf(200, 0, () => false),
      rowsOf(200, 1, () => false),
      rowsOf(200, 2, () => true),
      rowsOf(150, 3, (i) => i % 3 === 0),
      rowsOf(260, 4, () => false),
    ];
    for (const doc of checks) {
      rows.beginCheck();
      const text = enc.encode(doc, { tasks: (e: WatchdogJson['tasks'][number]) => rows.text(e) }).toString('utf8');
      expect(text).toBe(JSON.stringify(doc) + '\n');
    }
  });
});
