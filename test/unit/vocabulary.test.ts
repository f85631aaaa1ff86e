// The closed vocabularies and the defaults have one owner (src/contracts): everything else is
// derived from them, so the copies the code used to keep cannot drift apart again.
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ConfigSchema } from '../../src/contracts/config.js';
import { DEFAULTS } from '../../src/contracts/defaults.js';
import { EVENT_NAMES, OUTCOME_EVENT_OF, VERDICT_EVENT, verdictOfEvent } from '../../src/contracts/events.js';
import { ACTION_KINDS, EXEMPTION_NAMES, VERDICT_KINDS } from '../../src/contracts/vocabulary.js';
import { WatchdogJsonSchema } from '../../src/contracts/watchdog-json.js';
import { EXEMPTION_RULES } from '../../src/core/exemptions.js';
import { DEFAULT_POLICY, resolvePolicy } from '../../src/core/policy.js';

describe('vocabularies', () => {
  it('maps every verdict to its event or to none, and the inverse is exact', () => {
    expect(Object.keys(VERDICT_EVENT).sort()).toEqual([...VERDICT_KINDS].sort());
    for (const kind of VERDICT_KINDS) {
      const event = VERDICT_EVENT[kind];
      if (event !== null) {
        expect(EVENT_NAMES).toContain(event);
        expect(verdictOfEvent(event)).toBe(kind);
      }
    }
    const recorded = EVENT_NAMES.filter((e) => verdictOfEvent(e) !== undefined).sort();
    expect(recorded).toEqual(['healthy', 'looping_detected', 'stall_detected', 'task_unknown', 'truth_inconsistent', 'waiting_human']);
  });

  it('gives every action kind an outcome event', () => {
    expect(Object.keys(OUTCOME_EVENT_OF).sort()).toEqual([...ACTION_KINDS].sort());
    for (const e of Object.values(OUTCOME_EVENT_OF)) expect(EVENT_NAMES).toContain(e);
  });

  it('has one rule per exemption, in the order verdicts list them', () => {
    expect(Object.keys(EXEMPTION_RULES)).toEqual([...EXEMPTION_NAMES]);
    for (const rule of Object.values(EXEMPTION_RULES)) for (const key of rule.reads) expect(DEFAULT_POLICY).toHaveProperty(key);
  });

  it('counts every verdict kind in the watchdog.json summary', () => {
    const summary = (z.toJSONSchema(WatchdogJsonSchema, { io: 'output' }) as unknown as { properties: { summary: { required: string[] } } }).properties.summary;
    expect(summary.required).toEqual(expect.arrayContaining([...VERDICT_KINDS, 'total_tasks', 'redispatched', 'cancelled', 'escalated']));
  });
});

describe('DEFAULTS', () => {
  it('is what an empty config resolves to', () => {
    const p = resolvePolicy({});
    expect(p.ciPollingPatterns).toEqual([
      'gh run watch',
      'gh pr checks --watch',
      'gh pr checks --wait',
      'glab ci status --live',
      'glab ci status -l',
      'glab pipeline status --live',
    ]);
    expect(p).toEqual(DEFAULT_POLICY);
    expect(p.baseTimeoutMs).toBe(DEFAULTS.timeout_seconds * 1000);
  });

  it('is what the config schema documents (one source, so the CI patterns no longer drift)', () => {
    const json = JSON.stringify(z.toJSONSchema(ConfigSchema, { io: 'input' }));
    expect(json).toContain(
      '@defaultValue [\\"gh run watch\\", \\"gh pr checks --watch\\", \\"gh pr checks --wait\\", \\"glab ci status --live\\", \\"glab ci status -l\\", \\"glab pipeline status --live\\"]',
    );
    expect(json).toContain('Workflow state name, matched case-insensitively. @defaultValue Blocked');
    expect(json).toContain('SIGTERM→SIGKILL grace for the process adapter. @defaultValue 5000');
  });
});
