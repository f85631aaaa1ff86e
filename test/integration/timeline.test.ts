// `dispatch-watchdog timeline`: a known wave written as the watchdog and the agents write it (a
// dispatch log, a state file, a transcript, a hook activity file), drawn in the terminal and as
// SVG, and the SVG opened in real headless Chromium to check what it draws.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTimeline } from '../../src/core/timeline.js';
import { TIMELINE_COLORS, TIMELINE_SVG, renderTimelineSvg } from '../../src/core/timeline-svg.js';
import { CHROMIUM_MISSING, countColour, findChromium, rgb, screenshot } from '../helpers/chromium.js';
import { runMain } from '../helpers/in-process-cli.js';
import { KNOWN_EVENTS, KNOWN_WAVE, WAVE_T0 } from '../helpers/known-wave.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const iso = (s: number) => new Date(WAVE_T0 + s * 1000).toISOString();

/** The known wave on disk: its log, its rows, t1's transcript and t3's hook activity. */
function knownStateDir(): string {
  const root = tempDir('dw-timeline-');
  mkdirSync(path.join(root, 'dispatch-log'), { recursive: true });
  const foreign = { ...KNOWN_EVENTS[1]!, epic_id: 'OTHER', task_id: 'x9', agent_id: 'x9' };
  writeFileSync(path.join(root, 'dispatch-log', '2026-04-02.ndjson'), [...KNOWN_EVENTS, foreign].map((e) => JSON.stringify(e)).join('\n') + '\n');
  const transcript = path.join(root, 't1.jsonl');
  writeFileSync(
    transcript,
    Array.from({ length: 48 }, (_, i) => JSON.stringify({ type: i % 2 ? 'user' : 'assistant', timestamp: iso(i * 4), sessionId: 's1' })).join('\n') +
      '\n{"type":"summary"}\n{"torn',
  );
  mkdirSync(path.join(root, 'activity'), { recursive: true });
  writeFileSync(
    path.join(root, 'activity', 'a3.ndjson'),
    Array.from({ length: 10 }, (_, i) => JSON.stringify({ ts: iso(i * 2), event: 'PostToolUse', tool_name: 'Read' })).join('\n') + '\n',
  );
  writeWave(root, 'PROJ-1', iso(0), [
    { task_id: 't1', ticket_id: 'P-1', status: 'completed', transcript_path: transcript },
    { task_id: 't2', ticket_id: 'P-2', status: 'in_progress' },
    { task_id: 't3', ticket_id: 'P-3', status: 'in_progress', agent_id: 'a3' },
  ]);
  return root;
}

describe('dispatch-watchdog timeline', () => {
  it("draws the wave from the log and the agents' own records, within the width asked", async () => {
    const root = knownStateDir();
    const r = await runMain(['timeline', '--epic-id', 'PROJ-1', '--state-dir', root, '--width', '70'], { env: { NO_COLOR: '1' } });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines.map((l) => l.split(' ')[0])).toEqual(expect.arrayContaining(['t1', 't2', 't2-r1', 't2-r2', 't3']));
    expect(lines.some((l) => l.startsWith('x9'))).toBe(false); // another epic's lines are not this wave
    // t1's transcript: activity all along its lane; t3's hook lines, then the human wait.
    expect(lines.find((l) => l.startsWith('t1 '))).toMatch(/│▇{4}∞▇{20,}/);
    expect(lines.find((l) => l.startsWith('t3 '))).toMatch(/│▇{4}·+\?/);
    expect(lines.find((l) => l.startsWith('t2-r2'))).toMatch(/✗⛔ +escalated \(tracker skipped\)$/);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(70);
  });

  it('refuses an epic that does not exist, naming the one meant', async () => {
    const root = knownStateDir();
    const r = await runMain(['timeline', '--epic-id', 'PROJ-2', '--state-dir', root]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no epic "PROJ-2" here');
    expect(r.stderr).toContain('Did you mean --epic-id PROJ-1?');
    expect(r.stdout).toBe('');
  });

  it('writes a self-contained SVG file', async () => {
    const root = knownStateDir();
    const out = path.join(root, 'wave.svg');
    const r = await runMain(['timeline', '--epic-id', 'PROJ-1', '--state-dir', root, '--svg', out]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`wrote ${out}`);
    const svg = readFileSync(out, 'utf8');
    expect(svg).toContain('data-task="t2-r2"');
    expect(svg).not.toMatch(/<script|href=/);
  });

  it.skipIf(!findChromium())("real headless Chromium draws each lane's activity and marks where they belong", async () => {
    const dir = tempDir('dw-timeline-svg-');
    const tl = buildTimeline(KNOWN_WAVE);
    const file = path.join(dir, 'wave.svg');
    writeFileSync(file, renderTimelineSvg(tl));
    const height = Number(/height="(\d+)"/.exec(readFileSync(file, 'utf8'))![1]);
    const shot = await screenshot(file, TIMELINE_SVG.width, height);
    const G = TIMELINE_SVG;
    const laneY = (taskId: string) => G.top + tl.lanes.findIndex((l) => l.taskId === taskId) * G.laneH + G.laneH / 2;
    const left = 16 + G.labelPerChar * 5;
    const xOf = (s: number) => left + ((s * 1000) / (tl.endMs - tl.startMs)) * (G.width - left - G.right);
    const band = (taskId: string, s0: number, s1: number) => ({
      x0: Math.floor(xOf(s0)) - 2,
      x1: Math.ceil(xOf(s1)) + 2,
      y0: laneY(taskId) - 9,
      y1: laneY(taskId) + 9,
    });
    const red = rgb(TIMELINE_COLORS.stall);
    const green = rgb(TIMELINE_COLORS.activity);
    const purple = rgb(TIMELINE_COLORS.escalated);
    // Stalls: on t2 at 31 s, t2-r1 at 80 s, t2-r2 at 125 s; none on t1 or t3.
    expect(countColour(shot, red, band('t2', 28, 34))).toBeGreaterThan(10);
    expect(countColour(shot, red, band('t2-r1', 77, 83))).toBeGreaterThan(10);
    expect(countColour(shot, red, band('t2-r2', 122, 128))).toBeGreaterThan(10);
    expect(countColour(shot, red, band('t1', 0, 210))).toBe(0);
    expect(countColour(shot, red, band('t3', 0, 210))).toBe(0);
    // The escalation only on t2-r2, just after its stall.
    expect(countColour(shot, purple, band('t2-r2', 124, 140))).toBeGreaterThan(10);
    expect(countColour(shot, purple, band('t2', 0, 210))).toBe(0);
    // Activity: t1 all along; t2-r2 only while it worked (91–104 s), none after its escalation.
    expect(countColour(shot, green, band('t1', 150, 190))).toBeGreaterThan(20);
    expect(countColour(shot, green, band('t2-r2', 90, 105))).toBeGreaterThan(20);
    expect(countColour(shot, green, band('t2-r2', 140, 210))).toBe(0);
    // t3's human wait at 200 s.
    expect(countColour(shot, rgb(TIMELINE_COLORS.waiting_human), band('t3', 197, 204))).toBeGreaterThan(10);
  });

  it.skipIf(Boolean(findChromium()))('real headless Chromium check', () => {
    console.warn(CHROMIUM_MISSING);
  });
});
