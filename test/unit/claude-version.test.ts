// Which Claude Code a row runs (issue 38 item 4): every transcript record carries its writer's
// `version`; the state keeps it, the observation carries it, and the rules that differ by version
// ask cli-version.ts. On recorded lines of both versions run for real (2.1.197 and 2.1.332):
// - a Bash result that says "moved to the background (ID: …)" is Claude Code's auto-background
//   only from 2.1.210: in a 2.1.197 session that sentence is the command's own output;
// - a subagent's resends (2.1.300+ `api-request` records, no retry record) pace its backoff; a
//   main session's retries write `system/api_error`, so its resends never do.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CLAUDE_SINCE, hasBehaviour, isAtLeast, parseCliVersion } from '../../src/agents/claude-code/parse/cli-version.js';
import { parseTranscriptText, summarizeTranscript } from '../../src/agents/claude-code/parse/parse-transcript.js';

const FIX = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures');
const read = (...p: string[]) => readFileSync(path.join(FIX, ...p), 'utf8');
const R197 = ['real-2.1.197', 'give-up-resumed', 'fe27fd1f-8a46-4a69-bfc3-1dbe76c92ac5.jsonl'];
const PARKED = ['real-2.1.332', 'parked-on-background-command', 'd2a4e170-0dba-433b-96af-489811779975', 'subagents', 'agent-a74b351fc5cf6a059.jsonl'];
const MAIN_RETRY = ['real-2.1.332', 'main-retry-bash', '11bd68f5-94e6-4ca9-9e69-11231384d41e.jsonl'];
const KILLED_SUB = ['real-2.1.332', 'bg-agent-stall-kill', 'c516172b-9491-41c2-b86a-ede8c4aa912b', 'subagents', 'agent-abaa977f42daf9802.jsonl'];

describe('cli-version', () => {
  it('compares major.minor.patch numerically, and knows nothing of what is not a version', () => {
    expect(parseCliVersion('2.1.332')).toEqual([2, 1, 332]);
    expect(parseCliVersion('2.1.332 (Claude Code)')).toEqual([2, 1, 332]);
    expect(parseCliVersion('dev')).toBeUndefined();
    expect(isAtLeast('2.1.332', '2.1.210')).toBe(true);
    expect(isAtLeast('2.1.99', '2.1.210')).toBe(false);
    expect(isAtLeast('2.1.210', '2.1.210')).toBe(true);
    expect(isAtLeast('1.0.128', '2.1.198')).toBe(false);
    expect(isAtLeast(undefined, '2.1.198')).toBeUndefined();
    expect(hasBehaviour('2.1.197', 'backgroundSubagents')).toBe(false);
    expect(hasBehaviour('2.1.198', 'backgroundSubagents')).toBe(true);
    expect(hasBehaviour('2.1.209', 'autoBackground')).toBe(false);
    expect(CLAUDE_SINCE.autoBackground).toBe('2.1.210');
  });
});

describe('the version a transcript was written by, on recorded lines', () => {
  it('2.1.197 and 2.1.332 sessions say which they are; the observation carries it', () => {
    const old = parseTranscriptText(read(...R197)).state;
    const now = parseTranscriptText(read(...PARKED)).state;
    expect(old.cliVersion).toBe('2.1.197');
    expect(now.cliVersion).toBe('2.1.332');
    expect(summarizeTranscript(old).agentVersion).toBe('2.1.197');
    expect(summarizeTranscript(now).agentVersion).toBe('2.1.332');
  });

  it('"moved to the background (ID: …)" is an auto-backgrounded command on 2.1.332, and only the output of a finished command on 2.1.197', () => {
    // 2.1.332, recorded: the call moved at its 8 s timeout is an open wait on that command.
    const parked = parseTranscriptText(read(...PARKED)).state;
    expect(parked.open.map((c) => c.inputSummary)).toEqual([expect.stringMatching(/^waiting on b3bn4ehdu, moved to the background/)]);
    // 2.1.197, recorded, its Bash result replaced by a command that printed the same sentence.
    const sentence = 'Command did not complete within its 8s timeout and was moved to the background (ID: b3bn4ehdu).';
    const lines = read(...R197).replace('(Bash completed with no output)', sentence);
    expect(lines).toContain(sentence);
    const old = parseTranscriptText(lines).state;
    expect(old.open).toEqual([]);
    expect(old.tasks.filter((t) => t.id === 'b3bn4ehdu')).toEqual([]);
    // The same lines said to be 2.1.332's: the sentence is Claude Code's, and the agent waits on it.
    const as332 = parseTranscriptText(lines.replaceAll('"version":"2.1.197"', '"version":"2.1.332"')).state;
    expect(as332.open.map((c) => c.inputSummary)).toEqual([expect.stringMatching(/^waiting on b3bn4ehdu/)]);
  });

  it("a subagent's resends (no retry record) pace its backoff; a main session's never do (its retries write api_error)", () => {
    // The recorded killed subagent, its last request sent again 12 s later (as a 429 backoff would).
    const sub = read(...KILLED_SUB)
      .trim()
      .split('\n');
    const at = sub.findLastIndex((l) => l.includes('"type":"api-request"'));
    const req = JSON.parse(sub[at]!) as Record<string, unknown>;
    const again = { ...req, id: 'resend-1', timestamp: new Date(Date.parse(String(req.timestamp)) + 12_000).toISOString() };
    const resent = parseTranscriptText(`${[...sub.slice(0, at + 1), JSON.stringify(again)].join('\n')}\n`).state;
    expect(summarizeTranscript(resent).apiResend).toEqual({ sinceMs: Date.parse(again.timestamp), gapMs: 12_000, count: 1 });
    // The main session's recorded retries: three requests, no response between them, and api_error records.
    const main = parseTranscriptText(
      read(...MAIN_RETRY)
        .split('\n')
        .slice(0, 24)
        .join('\n') + '\n',
    ).state;
    expect(main.resend?.count ?? 0).toBeGreaterThanOrEqual(1);
    expect(summarizeTranscript(main).apiResend).toBeUndefined();
  });
});
