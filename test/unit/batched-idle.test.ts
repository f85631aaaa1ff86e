// The watch loop's sleep while a busy wave writes (issue 37): blocking waits with one turn of the
// event loop between two, so the events of a wait are handled in one wake-up.
import { appendFileSync, watch, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { batchedIdle } from '../../src/sys/batched-idle.js';
import { tempDir } from '../helpers/temp-dir.js';

/** A plain sleep that records its calls and never resolves on its own (aborts end it). */
function recordingSleep() {
  const calls: number[] = [];
  const sleep = (ms: number, signal?: AbortSignal) => {
    calls.push(ms);
    return new Promise<void>((resolve) => (signal?.aborted ? resolve() : signal?.addEventListener('abort', () => resolve(), { once: true })));
  };
  return { calls, sleep };
}

describe('the watch loop sleep for a busy wave', () => {
  it('is the plain sleep while change events come slower than the busy rate', async () => {
    const { calls, sleep } = recordingSleep();
    let t = 0;
    let events = 0;
    const idle = batchedIdle({ sleep, events: () => events, now: () => t, busyEventsPerSecond: 200 });
    const c = new AbortController();
    t = 2000;
    events = 399; // 199.5 a second
    const slept = idle(2000, c.signal);
    expect(calls).toEqual([2000]);
    c.abort();
    await slept;
  });

  it('handles, during one long blocking sleep, a change event, a timer and an abort: each at a turn between two waits', async () => {
    const { calls, sleep } = recordingSleep();
    let events = 0;
    const idle = batchedIdle({ sleep, events: () => events, chunkMs: 20 });
    events = 1_000_000; // far past the busy rate since the idle was made
    const dir = tempDir();
    const file = path.join(dir, 'agent.jsonl');
    writeFileSync(file, '');
    const c = new AbortController();
    const seen: string[] = [];
    // The write comes from a timer (the thread is blocked between turns, so it runs in one), the
    // event it raises comes in a later turn, and the event ends the sleep: none of it can happen
    // unless the loop turns during the sleep.
    const w = watch(dir, { persistent: false }, (_event, name) => {
      seen.push(`event ${String(name)}`);
      c.abort();
    });
    setTimeout(() => {
      seen.push('timer');
      appendFileSync(file, '{}\n');
    }, 10);
    await idle(3_600_000, c.signal);
    w.close();
    expect(seen).toEqual(['timer', 'event agent.jsonl']);
    expect(calls).toEqual([]);
  });

  it('ends at its time when nothing aborts it', async () => {
    const { calls, sleep } = recordingSleep();
    let events = 0;
    const idle = batchedIdle({ sleep, events: () => events, chunkMs: 10 });
    events = 1_000_000;
    const start = performance.now();
    await idle(30);
    expect(performance.now() - start).toBeGreaterThanOrEqual(29);
    expect(calls).toEqual([]);
  });
});
