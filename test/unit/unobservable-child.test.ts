// Missing evidence never kills (issue 19 item 3): a parent waiting on a child nothing can be seen
// of is unknown past its window, named, never stalled; a parent whose process is gone is judged.
import { describe, expect, it } from 'vitest';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { buildWatchdogJson } from '../../src/core/report.js';
import { emptyHistory } from '../../src/core/history.js';
import { WatchdogJsonSchema } from '../../src/contracts/watchdog-json.js';
import { makeObs, makeTask, reportMeta, T0 } from '../helpers/builders.js';
import { parseTranscriptText } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { observeTranscript } from '../../src/agents/claude-code/parse/observe-transcript.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';

const waiting = makeObs({
  sources: ['transcript'],
  lastProgressMs: T0,
  waitingOnChildren: { agentIds: ['a0123456789abcdef'], isBackground: true, unseenIds: ['a0123456789abcdef'] },
});

describe('a parent waiting on an unobservable child', () => {
  it('is healthy within its window, then unknown (not stalled), naming the child', () => {
    expect(assess(makeTask(), waiting, DEFAULT_POLICY, T0 + 120_000).kind).toBe('healthy');
    const v = assess(makeTask(), waiting, DEFAULT_POLICY, T0 + 120_001);
    expect(v).toMatchObject({ kind: 'unknown', unobservedChildren: ['a0123456789abcdef'] });
    expect(v.stallReason).toBeUndefined();
    expect(v.reason).toContain('no transcript found for a0123456789abcdef, so its silence cannot be judged; not acted on');
  });

  it('is judged by the stall rule once its own process is gone (nothing can wake it)', () => {
    const gone = { ...waiting, isProcessAlive: false };
    expect(assess(makeTask({ pid: 4242 }), gone, DEFAULT_POLICY, T0 + 120_001)).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
  });

  it('watchdog.json lists the unobserved children, and the schema takes them', () => {
    const task = makeTask();
    const v = assess(task, waiting, DEFAULT_POLICY, T0 + 200_000);
    const plan = { events: [], actions: [], stalls: new Map(), isMassStall: false };
    const json = buildWatchdogJson([task], [v], plan, emptyHistory(), reportMeta(T0 + 200_000));
    expect(json.tasks[0]).toMatchObject({ verdict: 'unknown', unobserved_children: ['a0123456789abcdef'] });
    expect(WatchdogJsonSchema.safeParse(json).success).toBe(true);
    expect(json.stalls_detected).toEqual([]);
  });
});

// Issue 33 item 7: a lead cut while its foreground subagent call was open, whose transcript had
// been receiving the child's progress lines (none naming the subagent), was "waiting on an
// unobservable child" for ever. The child was seen through those lines: their stopping is a stall.
describe('a parent whose transcript mirrors its child through progress lines', () => {
  const at = (s: number) => new Date(T0 + s * 1000).toISOString();
  const base = { sessionId: 's1', version: '2.1.37', cwd: '/w' };
  const prompt = { ...base, type: 'user', timestamp: at(0), message: { role: 'user', content: 'Explore' } };
  const call = {
    ...base,
    type: 'assistant',
    timestamp: at(1),
    message: {
      id: 'm1',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_task', name: 'Task', input: { description: 'x', prompt: 'y', subagent_type: 'Explore' } }],
    },
  };
  const progress = (s: number) => ({
    ...base,
    type: 'progress',
    timestamp: at(s),
    parentToolUseID: 'toolu_task',
    data: { type: 'agent_progress', message: { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'reading' }] } } },
  });
  const obsOf = (recs: unknown[]) =>
    mergeObservations([observeTranscript(parseTranscriptText(recs.map((r) => JSON.stringify(r)).join('\n') + '\n').state)], CLAUDE_LENS);

  it('stalls at window + 1 s after the last progress line (cut while the call was open)', () => {
    const obs = obsOf([prompt, call, progress(10), progress(50)]);
    expect(assess(makeTask(), obs, DEFAULT_POLICY, T0 + 50_000 + 120_000).kind).toBe('healthy');
    expect(assess(makeTask(), obs, DEFAULT_POLICY, T0 + 50_000 + 120_001)).toMatchObject({ kind: 'stalled', stallReason: 'inactivity' });
  });

  it('a child nothing was ever seen of stays unknown: missing evidence never kills', () => {
    const v = assess(makeTask(), obsOf([prompt, call]), DEFAULT_POLICY, T0 + 1_000 + 120_001);
    expect(v).toMatchObject({ kind: 'unknown', unobservedChildren: ['(the subagent of Task call toolu_task)'] });
  });
});
