// Codex's OpenTelemetry logs in the watchdog's vocabulary (contracts/telemetry-dialects.ts), from
// real 0.171.0 requests (test/fixtures/otlp/README.md): keyed by conversation.id (the thread id),
// each SSE event the model at work, a 429 and a stream failure an API retry, tool events activity.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TELEMETRY_DIALECTS } from '../../src/contracts/telemetry-dialects.js';
import { decodeExport } from '../../src/observe/parse/otlp-decode.js';
import { emptyTelemetryState, parseTelemetryLine, summarizeTelemetry } from '../../src/observe/parse/parse-telemetry.js';
import { REPO_ROOT } from '../helpers/cli.js';

const fixture = (name: string) => readFileSync(path.join(REPO_ROOT, 'test/fixtures/otlp', name));
const decodeRun = (tag: string, n: number) =>
  Array.from({ length: n }, (_, i) => decodeExport(fixture(`codex-${tag}-logs-${i + 1}.json`), 'logs', 'json', '10.0.0.9', 1_000 + i));

describe('Codex telemetry (codex.* log records)', () => {
  it('keys every event by its thread (conversation.id) and keeps them in order, in one vocabulary', () => {
    const events = decodeRun('exec', 6).flatMap((d) => d.events);
    expect(new Set(events.map((e) => e.sessionId))).toEqual(new Set(['01a24743-7c19-7b30-80df-41b7265cd45c']));
    const names = events.map((e) => e.line.event);
    expect(names.slice(0, 5)).toEqual(['activity', 'activity', 'activity', 'user_prompt', 'model_stream']);
    // The slowly streamed answer (a delta every 300 ms) is progress in each request that carried it:
    // a run of stream events of one request is one line (they share its arrival time), the last of the run.
    const streamed = events.filter((e) => e.line.event === 'model_stream');
    expect(streamed.filter((e) => e.line.kind === 'response.output_text.delta').length).toBeGreaterThanOrEqual(3);
    expect(new Set(streamed.map((e) => e.line.rx)).size).toBe(streamed.length);
    expect(events.length).toBeLessThan(decodeRun('exec', 6).reduce((n, d) => n + d.records, 0) / 2);
    expect(events.find((e) => e.line.name === 'codex.tool_decision')?.line).toMatchObject({
      event: 'activity',
      tool_name: 'exec_command',
      tool_use_id: expect.stringMatching(/^call_/),
    });
    // Nothing Codex sends is taken for a final answer (its rollout's task_complete says when a turn ends).
    expect(names).not.toContain('api_request');
    expect(names).not.toContain('assistant_response');
    // The metrics flush note at exit is no event.
    expect(decodeRun('exec', 6).reduce((n, d) => n + d.records, 0)).toBeGreaterThan(events.length);
  });

  it('a 429 and a stream that went idle are API retries; the next stream clears them', () => {
    const events = decodeRun('retry', 5).flatMap((d) => d.events);
    const errors = events.filter((e) => e.line.event === 'api_error').map((e) => e.line);
    expect(errors[0]).toMatchObject({ name: 'codex.api_request', status_code: '429', error: 'http 429', attempt: 0 });
    expect(errors.some((l) => l.name === 'codex.sse_event' && /idle timeout waiting for SSE/.test(l.error ?? ''))).toBe(true);
    const s = emptyTelemetryState();
    let retrying = false;
    events.forEach((e, i) => {
      parseTelemetryLine(s, JSON.stringify(e.line), 't.ndjson', { offset: i, lineNo: i + 1 });
      if (e.line.event === 'api_error') retrying ||= summarizeTelemetry(s).isApiRetrying === true;
    });
    expect(retrying).toBe(true);
    // The last request went through and streamed its answer: no retry, no finish inferred, progress at its last line.
    expect(summarizeTelemetry(s)).toMatchObject({ source: 'telemetry', lastProgressMs: 1_004 });
    expect(summarizeTelemetry(s).isApiRetrying).toBeUndefined();
    expect(summarizeTelemetry(s).finished).toBeUndefined();
  });

  it('a Claude Code dialect does not read Codex records, and the reverse', () => {
    const codexOnly = decodeExport(fixture('codex-exec-logs-2.json'), 'logs', 'json', 'p', 1, [TELEMETRY_DIALECTS['claude-code']]);
    expect(codexOnly.events).toEqual([]);
    const claude = decodeExport(fixture('json-logs-1.json'), 'logs', 'json', 'p', 1, [TELEMETRY_DIALECTS.codex]);
    expect(claude.events).toEqual([]);
    expect(decodeExport(fixture('json-logs-1.json'), 'logs', 'json', 'p', 1).events.length).toBeGreaterThan(0);
  });
});
