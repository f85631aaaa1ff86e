// The recorder of test/fixtures/real-2.1.197/give-up-resumed/ and slow-stream/ (issue 19 item 5):
// real Claude Code 2.1.197 sessions against the scripted model server, copied into the fixtures dir.
// Run once, by hand: `DW_RECORD=1 npx vitest run test/realagent/record-2197.test.ts` (about 3 min);
// skipped otherwise (the suite replays the committed files, it does not record them).
// The stream-json output has no timestamps: the recorder polls it every 50 ms and stamps each new
// line with its arrival time (`timestamp`, added as the line's last key), the form `replay` reads.
import { spawn } from 'node:child_process';
import { closeSync, cpSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_BIN, claudeEnv, claudeSkip, startClaude, type ClaudeSession } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { bash, contentText, startModelServer, text, type ModelServer } from '../helpers/model-server.js';

const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/real-2.1.197');
let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

/** Stamp each line of a growing stream-json file with the moment it was first seen; stop() returns the stamped text. */
function stamper(file: string) {
  const out: string[] = [];
  let seen = 0;
  const poll = () => {
    let raw = '';
    try {
      raw = readFileSync(file, 'utf8');
    } catch {
      return;
    }
    const lines = raw.split('\n');
    const whole = lines.slice(0, -1); // the last piece has no newline yet
    for (const l of whole.slice(seen)) {
      const rec = JSON.parse(l) as Record<string, unknown>;
      out.push(JSON.stringify(typeof rec.timestamp === 'string' ? rec : { ...rec, timestamp: new Date().toISOString() }));
    }
    seen = whole.length;
  };
  const timer = setInterval(poll, 50);
  return { stop: () => (clearInterval(timer), poll(), out.join('\n') + '\n') };
}

const save = (dir: string, s: ClaudeSession, streams: [string, string][]) => {
  rmSync(path.join(OUT, dir), { recursive: true, force: true });
  mkdirSync(path.join(OUT, dir), { recursive: true });
  cpSync(s.transcriptPath, path.join(OUT, dir, `${s.sessionId}.jsonl`));
  for (const [name, body] of streams) writeFileSync(path.join(OUT, dir, name), body);
};

describe.skipIf(claudeSkip !== undefined || process.env.DW_RECORD !== '1')('record real 2.1.197 sessions for the replay stand-in', { timeout: 400_000 }, () => {
  it('give-up-resumed: 529s until Claude Code gives up, then a resumed run that works and ends', async () => {
    const marker = 'GIVEUP-RESUMED';
    const resumeWord = 'Please continue now';
    const reply = (req: { body: any }) => {
      const last = req.body.messages.at(-1);
      if (Array.isArray(last?.content) && last.content.some((b: any) => b?.type === 'tool_result')) return { blocks: [text('Done after the resume.')] };
      if (!contentText(last?.content).includes(resumeWord)) return { status: 529 };
      return { blocks: [text('Resuming: checking the tree.'), bash('ls')] };
    };
    server.script(marker, [reply, reply, reply, reply]);
    const s = startClaude({ server, prompt: `${marker}: list the files`, env: { CLAUDE_CODE_MAX_RETRIES: '3' } });
    const first = stamper(s.streamPath);
    expect((await s.exited).code).toBe(1);
    const stream1 = first.stop();
    await new Promise((r) => setTimeout(r, 20_000)); // the human reads the error, then resumes
    const stream2Path = path.join(s.home, 'stream-resumed.jsonl');
    writeFileSync(stream2Path, '');
    const second = stamper(stream2Path);
    const fd = openSync(stream2Path, 'a');
    const child = spawn(
      CLAUDE_BIN,
      ['--resume', s.sessionId, '-p', resumeWord, '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'],
      { cwd: s.cwd, env: claudeEnv(server, s.home), stdio: ['ignore', fd, 'ignore'] },
    );
    closeSync(fd);
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    expect(code).toBe(0);
    save('give-up-resumed', s, [
      ['stream-1-gave-up.jsonl', stream1],
      ['stream-2-resumed.jsonl', second.stop()],
    ]);
  });

  it('slow-stream: one answer streamed a delta a second for 150 s, the transcript silent until it is complete', async () => {
    const marker = 'SLOWSTREAM-150';
    server.script(marker, [{ blocks: [text('abcd'.repeat(150))], chunkMs: 1000, chunkChars: 4 }]);
    const s = startClaude({ server, prompt: `${marker}: explain the design at length` });
    const st = stamper(s.streamPath);
    expect((await s.exited).code).toBe(0);
    await until(() => s.transcript().length > 0, 10_000, 'the transcript');
    save('slow-stream', s, [['stream.jsonl', st.stop()]]);
  });
});
