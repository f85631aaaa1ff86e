// The timeline of a known wave (test/helpers/known-wave.ts): built from the log and recorded
// activity only, drawn within the width asked, coloured only when told, and as SVG.
import { describe, expect, it } from 'vitest';
import { buildTimeline, summarizeWave, summaryLine, tickStepMs, offsetLabel } from '../../src/core/timeline.js';
import { laneCells, renderTimelineText } from '../../src/core/timeline-text.js';
import { renderTimelineSvg } from '../../src/core/timeline-svg.js';
import { KNOWN_EVENTS, KNOWN_WAVE, WAVE_T0 } from '../helpers/known-wave.js';

/** Columns a terminal draws: ⛔ is two wide, everything else we print one. */
const displayWidth = (s: string) => [...s.replace(/\x1b\[[0-9;]*m/g, '')].reduce((n, c) => n + (c === '⛔' ? 2 : 1), 0);

describe('buildTimeline', () => {
  const tl = buildTimeline(KNOWN_WAVE);

  it('has one lane per instance, each replacement under the one it replaced', () => {
    expect(tl.lanes.map((l) => [l.taskId, l.replaces ?? '-', l.outcome])).toEqual([
      ['t1', '-', 'done (completed)'],
      ['t2', '-', 'replaced by t2-r1'],
      ['t2-r1', 't2', 'replaced by t2-r2'],
      ['t2-r2', 't2-r1', 'escalated (tracker skipped)'],
      ['t3', '-', 'in flight'],
    ]);
  });

  it('draws only what the log and the records say: marks at their events, lanes end where the log ends them', () => {
    const t2 = tl.lanes.find((l) => l.taskId === 't2')!;
    expect(t2.marks.map((m) => [m.kind, (m.atMs - WAVE_T0) / 1000])).toEqual([
      ['stall', 31],
      ['redispatch', 32],
    ]);
    expect(t2.endMs).toBe(WAVE_T0 + 32_000);
    // The stall line's idle says when the agent last made progress: 31 - 20.4 s.
    expect(t2.activityMs).toContain(WAVE_T0 + 10_600);
    const r2 = tl.lanes.find((l) => l.taskId === 't2-r2')!;
    expect(r2.startMs).toBe(WAVE_T0 + 81_000);
    expect(r2.marks.map((m) => m.kind)).toEqual(['answered', 'stall', 'escalated']);
    // t3 is still in flight: its lane runs to the watchdog's last check.
    expect(tl.lanes.find((l) => l.taskId === 't3')!.endMs).toBeUndefined();
    expect(tl.endMs).toBe(KNOWN_WAVE.lastCheckMs);
    // Without a check it ends at the last recorded moment, never at a later 'now'.
    expect(buildTimeline({ ...KNOWN_WAVE, lastCheckMs: undefined }).endMs).toBe(WAVE_T0 + 200_000);
  });

  it('with no activity recorded, a lane has only the moments the log gives', () => {
    const bare = buildTimeline({ ...KNOWN_WAVE, activity: new Map() });
    expect(bare.lanes.find((l) => l.taskId === 't2-r1')!.activityMs).toEqual([WAVE_T0 + 80_000 - 20_600]);
  });

  it('counts what happened, and says a skipped tracker as such', () => {
    const s = summarizeWave(KNOWN_EVENTS);
    expect(s).toMatchObject({ stalls: 3, redispatches: 2, escalations: 1, trackerSkipped: 1, requestsAnswered: 2, waitingHuman: 1 });
    expect(s.detectLagMs).toEqual([400, 600, 1200]);
    expect(summaryLine(s)).toBe(
      '3 stalls, 2 redispatches, 1 escalation (tracker skipped: not moved to Blocked), 2 requests answered, 1 human wait; time to detect: 0.4–1.2 s past the window',
    );
  });

  it('picks readable ticks', () => {
    expect(tickStepMs(210_000, 8)).toBe(30_000);
    expect(tickStepMs(3 * 3600_000, 6)).toBe(1800_000);
    expect([0, 45_000, 60_000, 90_000, 3600_000, 5400_000].map(offsetLabel)).toEqual(['0s', '45s', '1m', '1m30s', '1h', '1h30m']);
  });
});

describe('renderTimelineText', () => {
  const tl = buildTimeline(KNOWN_WAVE);

  it('at 70 columns: the wave at a glance', () => {
    const lines = renderTimelineText(tl, { columns: 70, hasColor: false });
    expect(lines.join('\n')).toMatchInlineSnapshot(`
      "epic PROJ-1  2026-04-02 10:00:00–10:03:30 UTC (3m30s)  1 column = 6s
             0s       1m        2m        3m
      t1    │▇▇▇▇∞▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇▇     done (completed)
      t2    │▇▇···✗↻                             replaced by t2-r1
      t2-r1 │     ·✓▇▇▇··✗↻                      replaced by t2-r2
      t2-r2 │             ·✓▇▇···✗⛔             escalated (tracker skipped)
      t3    │▇▇▇▇····························?·  in flight
      ▇ activity  · silent  ⛔ escalated  ✗ stall  ↻ redispatch
      ? waiting on a human  ∞ looping  ✓ request answered
      3 stalls, 2 redispatches, 1 escalation (tracker skipped: not moved to
      Blocked), 2 requests answered, 1 human wait; time to detect: 0.4–1.2 s
      past the window"
    `);
  });

  it.each([40, 70, 120, 200])('never draws wider than %i columns', (columns) => {
    for (const line of renderTimelineText(tl, { columns, hasColor: true })) expect(displayWidth(line)).toBeLessThanOrEqual(columns);
  });

  it('its header dates the span, both dates when it crosses midnight UTC', () => {
    expect(renderTimelineText(tl, { columns: 100, hasColor: false })[0]).toBe(
      'epic PROJ-1  2026-04-02 10:00:00–10:03:30 UTC (3m30s)  1 column = 3s  5 lane(s)',
    );
    const late = { ...tl, startMs: Date.parse('2026-04-02T23:58:00Z'), endMs: Date.parse('2026-04-03T00:01:30Z'), lanes: [] };
    expect(renderTimelineText(late, { columns: 100, hasColor: false })[0]).toMatch(/^epic PROJ-1 {2}2026-04-02 23:58:00–2026-04-03 00:01:30 UTC \(3m30s\)/);
  });

  it('a narrow terminal drops the outcome column before the chart gets too small', () => {
    const lines = renderTimelineText(tl, { columns: 48, hasColor: false });
    expect(lines.find((l) => l.startsWith('t2-r2'))).not.toContain('escalated');
    expect(lines.find((l) => l.startsWith('t2-r2'))).toContain('⛔');
  });

  it('colours only when the terminal allows it (NO_COLOR, a pipe)', () => {
    expect(renderTimelineText(tl, { columns: 100, hasColor: false }).join('\n')).not.toContain('\x1b[');
    const coloured = renderTimelineText(tl, { columns: 100, hasColor: true }).join('\n');
    expect(coloured).toContain('\x1b[31;1m✗\x1b[0m');
    expect(coloured).toContain('\x1b[35;1m⛔\x1b[0m');
  });

  it('two marks in one slice both show, in time order', () => {
    const lane = tl.lanes.find((l) => l.taskId === 't2-r2')!;
    expect(laneCells(lane, tl.startMs, 30_000, 8, tl.endMs)).toEqual([undefined, undefined, 'silent', 'answered', 'stall', 'escalated', '', undefined]);
    // No room to move right: the more important mark stays.
    expect(laneCells(lane, tl.startMs, 60_000, 4, tl.endMs)).toEqual([undefined, 'answered', 'escalated', '']);
  });
});

describe('renderTimelineSvg', () => {
  const svg = renderTimelineSvg(buildTimeline(KNOWN_WAVE));

  it('is one self-contained document: no script, no external reference', () => {
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).not.toMatch(/<script|href=|url\(/);
  });

  it('has a lane per instance and a mark per event, each with its log line as a tooltip', () => {
    expect([...svg.matchAll(/class="lane" data-task="([^"]+)"/g)].map((m) => m[1])).toEqual(['t1', 't2', 't2-r1', 't2-r2', 't3']);
    const kinds = [...svg.matchAll(/class="mark" data-kind="([a-z_]+)"/g)].map((m) => m[1]);
    expect(kinds.filter((k) => k === 'stall')).toHaveLength(3);
    expect(kinds.filter((k) => k === 'escalated')).toHaveLength(1);
    expect(svg).toContain(
      '<title>10:02:06 t2-r2: escalated after 3 stalls (tracker skipped: not moved to Blocked); friction/2026-04-02-stall-escalation-p-2.md</title>',
    );
  });

  it('escapes what it quotes', () => {
    const odd = renderTimelineSvg(buildTimeline({ ...KNOWN_WAVE, epicId: 'A<&>' }));
    expect(odd).toContain('epic A&lt;&amp;&gt;');
  });
});
