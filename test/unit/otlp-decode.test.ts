// OTLP/HTTP export requests → Claude Code events, both encodings Claude Code speaks, from real
// 2.1.197 requests (test/fixtures/otlp/README.md); the descriptor is the vendored proto/ files'.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeExport, encodeResponse, OtlpDecodeError } from '../../src/observe/parse/otlp-decode.js';
import { REPO_ROOT } from '../helpers/cli.js';

const fixture = (name: string) => readFileSync(path.join(REPO_ROOT, 'test/fixtures/otlp', name));
const decodeAll = (files: string[], encoding: 'json' | 'protobuf') =>
  files.flatMap((f) => decodeExport(fixture(f), 'logs', encoding, '10.0.0.9', 1_000).events);
const shape = (e: ReturnType<typeof decodeAll>[number]) => {
  const { ts: _ts, rx: _rx, prompt_id: _p, tool_use_id: _id, ...rest } = e.line;
  return rest;
};

describe('decodeExport', () => {
  it('reads the same session from real JSON and protobuf requests', () => {
    const json = decodeAll(['json-logs-1.json', 'json-logs-2.json', 'json-logs-3.json'], 'json');
    const proto = decodeAll(['protobuf-logs-1.bin', 'protobuf-logs-2.bin', 'protobuf-logs-3.bin'], 'protobuf');
    expect(json.map((e) => e.line.event)).toEqual(['user_prompt', 'tool_decision', 'api_request', 'tool_result', 'api_request', 'assistant_response']);
    expect(proto.map(shape)).toEqual(json.map(shape));
    expect(new Set(json.map((e) => e.sessionId)).size).toBe(1);
    expect(json[1]!.line).toMatchObject({
      event: 'tool_decision',
      tool_name: 'Bash',
      decision: 'accept',
      command: 'sleep 2; echo done',
      host: 'agenthost-1',
      seq: 1,
    });
    expect(json[1]!.line.tool_use_id).toMatch(/^toolu_/);
    expect(json[3]!.line).toMatchObject({ event: 'tool_result', success: true, tool_use_id: json[1]!.line.tool_use_id });
    // event.timestamp is the time kept; rx is the receiver's.
    expect(json[0]!.line.ts).toBe('2026-12-01T23:39:14.908Z');
    expect(json[0]!.line.rx).toBe(1_000);
  });

  it('counts metrics as traffic from their host and keeps no event', () => {
    for (const [f, enc] of [
      ['json-metrics-1.json', 'json'],
      ['protobuf-metrics-1.bin', 'protobuf'],
    ] as const) {
      const d = decodeExport(fixture(f), 'metrics', enc, '10.0.0.9', 1);
      expect(d.events).toEqual([]);
      expect([...d.hosts]).toEqual([['agenthost-1', 1]]);
    }
  });

  const record = (attrs: Record<string, string | number>, body = 'claude_code.api_error') => ({
    resourceLogs: [
      {
        resource: { attributes: [] },
        scopeLogs: [
          {
            logRecords: [
              {
                timeUnixNano: '1796168354908000000',
                body: { stringValue: body },
                attributes: Object.entries(attrs).map(([key, v]) => ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } })),
              },
            ],
          },
        ],
      },
    ],
  });
  const json = (v: unknown) => Buffer.from(JSON.stringify(v));

  it("keeps api_error with its attempt and status; a record without host.name is the peer's", () => {
    const d = decodeExport(
      json(record({ 'session.id': 's-1', 'event.name': 'api_error', attempt: 3, status_code: '529', error: 'Overloaded' })),
      'logs',
      'json',
      '10.0.0.9',
      5,
    );
    expect(d.events).toEqual([
      {
        sessionId: 's-1',
        line: { ts: '2026-12-01T23:39:14.908Z', rx: 5, event: 'api_error', host: '10.0.0.9', attempt: 3, status_code: '529', error: 'Overloaded' },
      },
    ]);
  });

  it('refuses records with no usable session id (partial success) and drops events it does not keep', () => {
    const bad = decodeExport(json(record({ 'session.id': '../../etc', 'event.name': 'api_error' })), 'logs', 'json', 'p', 1);
    expect(bad).toMatchObject({ events: [], rejected: 1, records: 1 });
    expect(bad.rejectedReason).toMatch(/is not a session id/);
    const none = decodeExport(json(record({ 'event.name': 'tool_result' })), 'logs', 'json', 'p', 1);
    expect(none.rejectedReason).toBe('a claude_code.tool_result record has no session.id attribute');
    const other = decodeExport(json(record({ 'session.id': 's' }, 'something else')), 'logs', 'json', 'p', 1);
    expect(other).toMatchObject({ events: [], rejected: 0, records: 1 });
    expect([...other.hosts]).toEqual([['p', 1]]);
  });

  it('says why a body is not a request', () => {
    expect(() => decodeExport(Buffer.from('{"resourceLogs": ['), 'logs', 'json', 'p', 1)).toThrow(OtlpDecodeError);
    expect(() => decodeExport(Buffer.from('[]'), 'logs', 'json', 'p', 1)).toThrow(/expected a JSON object with "resourceLogs"/);
    expect(() => decodeExport(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f]), 'logs', 'protobuf', 'p', 1)).toThrow(/not a protobuf OTLP logs export request/);
  });

  it('answers with partial success in both encodings', () => {
    expect(JSON.parse(Buffer.from(encodeResponse('logs', 'json', 2, 'why')).toString())).toEqual({
      partialSuccess: { rejectedLogRecords: 2, errorMessage: 'why' },
    });
    expect(Buffer.from(encodeResponse('logs', 'json', 0)).toString()).toBe('{}');
    expect(encodeResponse('logs', 'protobuf', 0).length).toBe(0);
    expect(encodeResponse('logs', 'protobuf', 2, 'why').length).toBeGreaterThan(0);
  });

  it('decodes from a descriptor that is the vendored .proto files', () => {
    execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/otlp-proto.mjs'), '--check']);
  });
});

describe('what is stored', () => {
  it('redacts secrets in commands, parameters and errors', () => {
    const params = JSON.stringify({ full_command: 'curl -H "Authorization: Bearer abcdef123456789" https://x', description: 'd' });
    const body = {
      resourceLogs: [
        {
          scopeLogs: [
            {
              logRecords: [
                {
                  body: { stringValue: 'claude_code.tool_decision' },
                  attributes: [
                    { key: 'session.id', value: { stringValue: 's1' } },
                    { key: 'tool_name', value: { stringValue: 'Bash' } },
                    { key: 'decision', value: { stringValue: 'accept' } },
                    { key: 'tool_parameters', value: { stringValue: params } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const [e] = decodeExport(Buffer.from(JSON.stringify(body)), 'logs', 'json', 'p', 1).events;
    expect(JSON.stringify(e)).not.toContain('abcdef123456789');
    expect(e!.line.command).toMatch(/^curl -H "Authorization: /);
  });
});
