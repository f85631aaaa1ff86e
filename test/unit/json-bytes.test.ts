import { describe, expect, it } from 'vitest';
import { JsonBytes } from '../../src/files/json-bytes.js';

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
