// Stall reasons are one closed vocabulary (contracts/vocabulary.ts STALL_REASONS): files written
// now use today's names, files an earlier version wrote (`api_error`) are read as today's, and
// the docs list every reason.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderRecoveryPrompt } from '../../src/act/recovery/checkpoint.js';
import { stallRecordFromEvent } from '../../src/act/friction/stall-history.js';
import { parseCheckpoint } from '../../src/contracts/checkpoint.js';
import { LEGACY_STALL_REASONS, STALL_REASONS, StallReasonAsRead, StallReasonSchema } from '../../src/contracts/vocabulary.js';
import { stallReasonOf } from '../../src/core/assess.js';
import { parseLogLine } from '../../src/journal/dispatch-log.js';

const line = (o: Record<string, unknown>) =>
  JSON.stringify({ timestamp_utc: '2026-04-02T10:00:00.000Z', epic_id: 'E-1', run_id: 'r1', ticket_id: 'ENG-1', task_id: 't1', agent_id: 't1', ...o });
const stallLine = (reason: string) =>
  line({
    event: 'stall_detected',
    stall_reason: reason,
    idle_seconds: 0,
    bash_timeout_exemption: false,
    redispatch_attempt: 1,
    max_redispatches: 2,
    action_taken: 'redispatch',
  });
const doc = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8');

describe('stall reasons', () => {
  it("reads each of today's names as itself, an earlier version's as today's, and nothing else", () => {
    for (const r of STALL_REASONS) expect(StallReasonAsRead.parse(r)).toBe(r);
    expect(StallReasonAsRead.parse('api_error')).toBe('api_gave_up');
    for (const old of Object.keys(LEGACY_STALL_REASONS)) expect(StallReasonSchema.safeParse(old).success).toBe(false);
    for (const bad of ['stalled', 'constructor', 'toString', '', 3]) expect(StallReasonAsRead.safeParse(bad).success).toBe(false);
  });

  it("reads an old dispatch log's api_error stall as api_gave_up, so history and friction see today's name", () => {
    const r = parseLogLine(stallLine('api_error'));
    expect(r).toMatchObject({ ok: true, event: { event: 'stall_detected', stall_reason: 'api_gave_up' } });
    if (r.ok && r.event.event === 'stall_detected') expect(stallRecordFromEvent(r.event).stallReason).toBe('api_gave_up');
    expect(parseLogLine(line({ event: 'action_started', key: 'E-1:t1:redispatch', action: 'redispatch', stall_reason: 'api_error' }))).toMatchObject({
      ok: true,
      event: { stall_reason: 'api_gave_up' },
    });
  });

  it('reports a stall line with a reason it does not know, and keeps a write-ahead record whatever its reason says', () => {
    const r = parseLogLine(stallLine('stalled'));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.message).toMatch(/^event "stall_detected": stall_reason: .*skipped$/);
    const started = parseLogLine(line({ event: 'action_started', key: 'E-1:t1:redispatch', action: 'redispatch', stall_reason: 'a_newer_reason' }));
    expect(started).toMatchObject({ ok: true, event: { event: 'action_started', key: 'E-1:t1:redispatch' } });
    expect(started.ok && 'stall_reason' in started.event ? started.event.stall_reason : undefined).toBeUndefined();
  });

  it('reads an old checkpoint that says api_error, and its recovery prompt says the agent gave up', () => {
    const yaml = [
      'schema_version: "1"',
      'epic_id: E-1',
      'ticket_id: ENG-1',
      'task_id: t1',
      'attempt: 1',
      'recovery_task_id: t1-r1',
      'created_at: "2026-04-02T10:00:00.000Z"',
      'stall_reason: api_error',
      'idle_seconds: 0',
      'completed_work: []',
      'remaining_work: []',
      'last_tool: null',
      'last_output: null',
      'supersedes: null',
    ].join('\n');
    const r = parseCheckpoint(yaml, 'recovery-1.yaml');
    expect(r).toMatchObject({ ok: true, value: { stall_reason: 'api_gave_up' } });
    if (r.ok) expect(renderRecoveryPrompt(r.value, { checkpointPath: '/c.yaml' })).toContain('The previous agent stopped on an API error it gave up on');
  });

  it("a lost wake's recovery prompt says the subagents' work is done (issue 38)", () => {
    const yaml = [
      'schema_version: "1"',
      'epic_id: E-1',
      'ticket_id: ENG-1',
      'task_id: t1',
      'attempt: 1',
      'recovery_task_id: t1-r1',
      'created_at: "2026-04-02T10:00:00.000Z"',
      'stall_reason: wake_lost',
      'idle_seconds: 31',
      'completed_work: []',
      'remaining_work: []',
      'last_tool: null',
      'last_output: null',
      'supersedes: null',
    ].join('\n');
    const r = parseCheckpoint(yaml, 'recovery-1.yaml');
    expect(r).toMatchObject({ ok: true, value: { stall_reason: 'wake_lost' } });
    if (r.ok) expect(renderRecoveryPrompt(r.value, { checkpointPath: '/c.yaml' })).toContain('a lost completion wake): their work is done');
  });

  it('records a loop acted on as looping, and a stalled verdict with its own reason', () => {
    expect(stallReasonOf({ kind: 'looping' })).toBe('looping');
    expect(stallReasonOf({ kind: 'stalled', stallReason: 'api_gave_up' })).toBe('api_gave_up');
    expect(stallReasonOf({ kind: 'stalled' })).toBe('inactivity');
  });

  it('lists every reason in docs/verdicts.md and docs/state-files.md', () => {
    for (const file of ['verdicts.md', 'state-files.md']) {
      const text = doc(file);
      for (const r of STALL_REASONS) expect(text, `${file} names ${r}`).toContain(`\`${r}\``);
    }
  });
});
