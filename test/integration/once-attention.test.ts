// `--once` says when a person is needed, as `next` (13) and the loop do: a row its agent
// disagrees with, with a reconcile request pending, is "something needs a person" (exit 3), never 0.
// In-process, on a manual clock.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { assistant, jsonl, system, text, user } from '../helpers/claude-lines.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';
const T0 = Date.parse('2026-04-02T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('--once --action report on an inconsistent row', () => {
  it('exits 3 once its reconcile request is pending, and while it stays so', async () => {
    const dir = tempDir();
    const at = (s: number) => ({ timestamp: iso(T0 + s * 1000), sessionId: 's-1' });
    const file = path.join(dir, 's-1.jsonl');
    writeFileSync(file, jsonl(user(0, 'Fix ENG-1', at(0)), assistant(1, [text('Done.')], at(1)), system(2, 'turn_duration', at(2))));
    writeWave(dir, EPIC, iso(T0), [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', dispatched_at: iso(T0), session_id: 's-1', transcript_path: file },
    ]);
    const clock = new ManualClock(T0 + 3_000);
    const once = async (action: 'report' | 'redispatch') =>
      (await startSession(clock, { epicId: EPIC, stateDir: dir, once: true, action, timeout: 60 }, { claudeConfigDir: path.join(dir, 'claude') })).done;
    expect(await once('report')).toBe(0); // the disagreement is seen: its reconcile grace starts
    clock.set(T0 + 600_000);
    // Report mode writes no request, but the reconcile is due: a person is needed.
    expect(await once('report')).toBe(3);
    expect(readEvents(dir).filter((e) => e.event === 'reconcile_requested')).toEqual([]);
    // A watchdog that acts nudges first, then, the nudge changing nothing, writes the reconcile
    // request; while it is pending, report mode says so too.
    await once('redispatch');
    expect(readEvents(dir).filter((e) => e.event === 'nudge_sent')).toHaveLength(1);
    clock.set(T0 + 1_200_000);
    expect(await once('redispatch')).toBe(3);
    expect(readEvents(dir).filter((e) => e.event === 'reconcile_requested')).toHaveLength(1);
    expect(await once('report')).toBe(3);
  });
});
