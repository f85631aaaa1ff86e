// The circuit breaker over staggered stalls (issue 8 item 6): each deadline wakes its own check, so
// stalls 200 ms apart must trip it as surely as stalls in one check.
import { describe, expect, it } from 'vitest';
import { readEvents, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';
import { startWatch } from '../helpers/watch-harness.js';

const T0 = Date.parse('2026-04-02T10:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('the circuit breaker', () => {
  it('counts stalls within a sliding window across checks: 10 agents stalling 200 ms apart, only the first 2 acted on', async () => {
    const dir = tempDir();
    // Agent i last made progress at T0 + 200 ms × i: deadlines 200 ms apart, one check each.
    const rows = Array.from({ length: 10 }, (_, i) => ({ task_id: `t${i}`, ticket_id: `P-${i}`, status: 'in_progress', last_activity_ts: iso(T0 + 200 * i) }));
    writeWave(dir, 'E-1', iso(T0), rows);
    const h = await startWatch({ epicId: 'E-1', stateDir: dir, action: 'redispatch', timeout: 120, checkInterval: 30 }, T0 + 2000);
    const stallsLogged = () => readEvents(dir).filter((e) => e.event === 'stall_detected');
    for (let i = 0; i < 30 && stallsLogged().length < 10; i++) await h.advance(h.clock.nextWakeMs()! - h.clock.nowMs());
    const stalls = stallsLogged();
    expect(stalls.map((e) => `${e.task_id}:${e.action_taken}`)).toEqual([
      't0:redispatch',
      't1:redispatch',
      ...Array.from({ length: 8 }, (_, i) => `t${i + 2}:held:mass_stall`),
    ]);
    expect(
      readEvents(dir)
        .filter((e) => e.event === 'mass_stall')
        .at(-1),
    ).toMatchObject({ stalled: 10, in_flight: 10 });
    h.stop();
    await h.done;
  });
});
