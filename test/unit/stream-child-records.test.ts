// A `claude -p` stream-json output carries its subagents' messages too, each with the
// `parent_tool_use_id` of the Agent call that started it (2.1.332 and 2.1.337 stream a background
// subagent's; recorded: test/fixtures/real-2.1.332/). They are the run's progress, never the lead's
// own calls or output: the recorded subagent's Bash, parked in the background and never answered
// in the stream, held the lead's row open on a Bash call (a 660 s window instead of 120 s). While
// the Agent call is open (a foreground subagent, 2.1.197), its calls are the lead's wait.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTranscriptText, summarizeTranscript } from '../../src/agents/claude-code/parse/parse-transcript.js';
import { REPO_ROOT } from '../helpers/cli.js';

const recorded = (name: string) => readFileSync(path.join(REPO_ROOT, 'test/fixtures/real-2.1.332', name, 'stream.jsonl'), 'utf8');
/** The lines up to the first `result` (the run's end), as a check during the run reads them. */
const beforeResult = (text: string) => text.slice(0, text.indexOf('{"type":"result"'));

describe("a stream-json output's subagent records", () => {
  it("are not the lead's calls or output: the parked subagent's Bash holds nothing open on the lead", () => {
    const { state } = parseTranscriptText(beforeResult(recorded('parked-on-background-command')));
    expect(state.open.map((c) => c.name)).toEqual([]);
    expect(state.recent.map((c) => c.name)).toEqual(['Agent']);
    expect(state.lastOutput).toBe('Done.');
  });

  it("are the run's progress: the lead waiting on its subagent is active while the subagent works", () => {
    const text = recorded('bg-agent-completes');
    const lines = text.split('\n').filter(Boolean);
    const childAt = lines.map((l) => JSON.parse(l)).filter((r) => typeof r.parent_tool_use_id === 'string' && r.timestamp !== undefined);
    expect(childAt.length).toBeGreaterThan(0);
    // Up to the subagent's last record: the lead's progress is that record's time.
    const upTo = lines.slice(0, lines.indexOf(lines.find((l) => l.includes(childAt.at(-1)!.uuid))!) + 1).join('\n') + '\n';
    const part = summarizeTranscript(parseTranscriptText(upTo).state);
    expect(part.lastProgressMs).toBe(Date.parse(childAt.at(-1)!.timestamp));
    expect(part.lastOutput).toBe('Waiting for the agent.');
  });

  it("while the lead waits inside the Agent call (a foreground subagent), the subagent's calls are its wait", () => {
    const at = (s: number) => new Date(Date.UTC(2026, 11, 8, 1, 0, s)).toISOString();
    const line = (o: Record<string, unknown>) => JSON.stringify({ session_id: 's1', ...o });
    const call = (id: string, name: string, input: Record<string, unknown>, parent: string | null, s: number) =>
      line({
        type: 'assistant',
        parent_tool_use_id: parent,
        timestamp: at(s),
        message: { role: 'assistant', content: [{ type: 'tool_use', id, name, input }] },
      });
    const text =
      [
        call('toolu_a', 'Agent', { prompt: 'build', subagent_type: 'general-purpose' }, null, 0),
        call('toolu_b', 'Bash', { command: 'npm run build', timeout: 600_000 }, 'toolu_a', 2),
      ].join('\n') + '\n';
    const { state } = parseTranscriptText(text);
    expect(state.open.map((c) => c.name)).toEqual(['Agent', 'Bash']);
    // The same subagent call after the Agent call returned (a background subagent) is progress only.
    const launched = line({
      type: 'user',
      parent_tool_use_id: null,
      timestamp: at(1),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: 'Async agent launched successfully.' }] },
    });
    const background = parseTranscriptText(
      [call('toolu_a', 'Agent', { prompt: 'build' }, null, 0), launched, call('toolu_b', 'Bash', { command: 'npm run build' }, 'toolu_a', 2)].join('\n') + '\n',
    ).state;
    expect(background.open.map((c) => c.name)).toEqual([]);
    expect(background.lastEventMs).toBe(Date.parse(at(2)));
  });
});
