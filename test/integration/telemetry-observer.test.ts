// The telemetry observer (issue 32 item 1): its own observer, agent-neutral. It reads the telemetry
// the receiver stored for the session a row points at, for a Claude Code row and a Codex row alike
// (the lines are already in one vocabulary), none for a subagent row (its events carry its
// parent's session), and reuses its answer while no telemetry exists for a row.
import { appendFileSync, mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withoutTelemetryGaps } from '../../src/check-observe.js';
import { TELEMETRY_DIALECTS } from '../../src/contracts/telemetry-dialects.js';
import { HARNESSES } from '../../src/agents/harnesses.js';
import { StatePaths } from '../../src/files/paths.js';
import type { PartialObservation } from '../../src/observe/parse/observation.js';
import { createTelemetryObserver, telemetrySessionOf } from '../../src/observe/read/telemetry-observer.js';
import { makeTask, T0 } from '../helpers/builders.js';
import { tempDir } from '../helpers/temp-dir.js';

const CLAUDE_SESSION = 'aaaaaaaa-0000-4000-8000-00000000000a';
const THREAD = '01a24743-7c19-7b30-80df-41b7265cd45c';

function bed() {
  const paths = new StatePaths(tempDir('dw-telobs-'));
  mkdirSync(paths.telemetryDir(), { recursive: true });
  const write = (session: string, ...lines: Record<string, unknown>[]) =>
    appendFileSync(paths.telemetryFile(session), lines.map((l) => `${JSON.stringify({ ts: new Date(T0).toISOString(), host: 'h1', ...l })}\n`).join(''));
  return { paths, write, observer: createTelemetryObserver({ paths, isPersistent: false }) };
}

describe('the telemetry observer', () => {
  it('reads the session a Claude Code row and a Codex row point at, the same way', async () => {
    const b = bed();
    b.write(CLAUDE_SESSION, { rx: T0 + 1000, event: 'tool_decision', tool_name: 'Bash', tool_use_id: 'tu1', decision: 'accept' });
    b.write(THREAD, { rx: T0 + 2000, event: 'api_error', name: 'codex.api_request', status_code: '429', attempt: 0 });
    const claude = makeTask({ sessionId: CLAUDE_SESSION });
    const codex = makeTask({ taskId: 't2', agent: 'codex', sessionId: THREAD });
    b.observer.beginCheck?.(T0 + 3000);
    const [c] = await b.observer.observe(claude, T0 + 3000);
    expect(c).toMatchObject({ source: 'telemetry', lastProgressMs: T0 + 1000, lastTool: { name: 'Bash', isOpen: true } });
    const [x] = await b.observer.observe(codex, T0 + 3000);
    expect(x).toMatchObject({ source: 'telemetry', lastProgressMs: T0 + 2000, isApiRetrying: true });
    // A row with telemetry is read again each check (what is appended is the evidence).
    expect(b.observer.observeUnchanged?.(codex, T0 + 3000)).toBeUndefined();
  });

  it('reads nothing for a subagent row, and reuses its answer while a row has no telemetry, until some arrives', async () => {
    const b = bed();
    const sub = makeTask({ sessionId: CLAUDE_SESSION, agentId: 'a1234567890abcdef' });
    expect(telemetrySessionOf(sub)).toBeUndefined();
    b.write(CLAUDE_SESSION, { rx: T0, event: 'user_prompt' });
    expect(await b.observer.observe(sub, T0)).toEqual([]);
    expect(b.observer.observeUnchanged?.(sub, T0)).toEqual([]);
    const row = makeTask({ taskId: 't3', sessionId: THREAD });
    b.observer.beginCheck?.(T0);
    const none = await b.observer.observe(row, T0);
    expect(none).toEqual([]);
    expect(b.observer.observeUnchanged?.(row, T0, true)).toBe(none);
    b.write(THREAD, { rx: T0 + 5000, event: 'model_stream', name: 'codex.sse_event', kind: 'response.output_text.delta' });
    b.observer.beginCheck?.(T0 + 5000);
    expect(b.observer.observeUnchanged?.(row, T0 + 5000, true)).toBeUndefined();
    expect(await b.observer.observe(row, T0 + 5000)).toMatchObject([{ source: 'telemetry', lastProgressMs: T0 + 5000 }]);
  });

  it('a transcript this machine cannot find is no gap once telemetry shows the agent at work', () => {
    const missing: PartialObservation = { source: 'transcript', missing: [{ source: 'transcript', reason: 'no transcript here' }] };
    const seen: PartialObservation = { source: 'telemetry', lastProgressMs: T0 };
    expect(withoutTelemetryGaps([{ source: 'row' }, missing, seen])).toEqual([{ source: 'row' }, seen]);
    expect(withoutTelemetryGaps([{ source: 'row' }, missing, { source: 'telemetry' }])).toHaveLength(3);
  });

  it('each harness names its own dialect, and the receiver decodes every one', () => {
    for (const [name, h] of Object.entries(HARNESSES)) expect(h?.telemetry).toBe(TELEMETRY_DIALECTS[name as keyof typeof TELEMETRY_DIALECTS]);
  });
});
