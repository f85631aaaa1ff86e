// The recorder of test/fixtures/real-2.1.332/ (issue 38) and real-2.1.337/ (`DW_RECORD_VERSION=2.1.337`):
// real Claude Code sessions of that version against
// the scripted model server, their whole project dir (lead, subagents, meta.json), the stream-json
// stdout (stamped as record-2197.test.ts does), every hook payload (a `cat >> hooks.ndjson` command
// on each event) and the `sessions/<pid>.json` the run wrote, copied into the fixtures dir.
// Run once, by hand: `DW_RECORD=1 npx vitest run test/realagent/record-2332.test.ts` (about 2 min);
// skipped otherwise. The `speed` helper learns 2.1.332's record mix and sizes from these.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeSkipFor, startClaude, type ClaudeSession, type ClaudeVersion } from '../helpers/claude-session.js';
import { until } from '../helpers/cli.js';
import { agent, bash, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The version recorded: 2.1.332 unless DW_RECORD_VERSION names another (the scenarios need 2.1.332's behaviour or later). */
const VERSION = (process.env.DW_RECORD_VERSION ?? '2.1.332') as ClaudeVersion;
const OUT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), `../fixtures/real-${VERSION}`);
let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'SubagentStart',
  'SubagentStop',
  'Stop',
  'StopFailure',
  'SessionStart',
  'SessionEnd',
  'UserPromptSubmit',
  'Notification',
  'PermissionRequest',
];
/** A HOME whose settings log every hook payload to hooks.ndjson (one line each). */
export function hookHome(): string {
  const home = tempDir();
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  const log = path.join(home, 'hooks.ndjson');
  const hook = { hooks: [{ type: 'command', command: `(cat; echo) >> ${log}`, timeout: 10 }] };
  const hooks = Object.fromEntries(EVENTS.map((e) => [e, [{ matcher: '*', ...hook }]]));
  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ hooks }, null, 2));
  return home;
}

/** Stamp each line of a growing stream-json file with the moment it was first seen. */
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
    const whole = raw.split('\n').slice(0, -1);
    for (const l of whole.slice(seen)) {
      const rec = JSON.parse(l) as Record<string, unknown>;
      out.push(JSON.stringify(typeof rec.timestamp === 'string' ? rec : { ...rec, timestamp: new Date().toISOString() }));
    }
    seen = whole.length;
  };
  const timer = setInterval(poll, 50);
  return { stop: () => (clearInterval(timer), poll(), out.join('\n') + '\n') };
}

/** Watch sessions/<pid>.json while the run lives (Claude Code removes it at exit). */
function sessionFile(s: ClaudeSession) {
  const f = path.join(s.claudeDir, 'sessions', `${s.pid}.json`);
  let last = '';
  const timer = setInterval(() => existsSync(f) && (last = readFileSync(f, 'utf8')), 100);
  return { stop: () => (clearInterval(timer), { body: last, removed: !existsSync(f) }) };
}

const save = (dir: string, s: ClaudeSession, stream: string, sess: { body: string; removed: boolean }) => {
  const to = path.join(OUT, dir);
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  cpSync(s.transcriptPath, path.join(to, `${s.sessionId}.jsonl`));
  const sub = path.join(s.projectDir, s.sessionId);
  if (existsSync(sub)) cpSync(sub, path.join(to, s.sessionId), { recursive: true });
  writeFileSync(path.join(to, 'stream.jsonl'), stream);
  const hooks = path.join(s.home, 'hooks.ndjson');
  if (existsSync(hooks))
    writeFileSync(
      path.join(to, 'hooks.ndjson'),
      readFileSync(hooks, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.stringify(JSON.parse(l)))
        .join('\n') + '\n',
    );
  writeFileSync(
    path.join(to, 'session-pid.json'),
    JSON.stringify({ removed_at_exit: sess.removed, last_seen: sess.body ? JSON.parse(sess.body) : null }, null, 2) + '\n',
  );
};

describe.skipIf(process.env.DW_RECORD !== '1' || claudeSkipFor(VERSION) !== undefined)(`record real ${VERSION} sessions`, { timeout: 400_000 }, () => {
  it('bg-agent-stall-kill: a background subagent runs a command, its next reply freezes, Claude Code kills it at 20 s; the lead answers the failure', async () => {
    const lead = 'REC332-LEAD';
    const sub = 'REC332-SUB';
    server.script(lead, [
      { blocks: [text('Dispatching.'), agent(`${sub}: run the build`)] },
      { blocks: [text('Waiting for the agent.')] },
      { blocks: [text('The agent failed; reporting.')] },
    ]);
    server.script(sub, [{ blocks: [bash(`node -e "setTimeout(()=>console.log('built'),3000)"`)] }, { freeze: 'before_bytes' }]);
    const s = startClaude({
      server,
      prompt: `${lead}: dispatch the build`,
      version: VERSION,
      home: hookHome(),
      env: { CLAUDE_ASYNC_AGENT_STALL_TIMEOUT_MS: '20000' },
    });
    const st = stamper(s.streamPath);
    const sf = sessionFile(s);
    const ex = await s.exited;
    expect(ex.code).toBe(0);
    await until(() => s.transcript().length > 0, 10_000, 'the transcript');
    save('bg-agent-stall-kill', s, st.stop(), sf.stop());
  });

  it('bg-agent-completes: a background subagent runs a command and answers; its completion notification wakes the lead, which answers', async () => {
    const lead = 'REC332-CLEAD';
    const sub = 'REC332-CSUB';
    server.script(lead, [{ blocks: [agent(`${sub}: run the build`)] }, { blocks: [text('Waiting for the agent.')] }, { blocks: [text('The build is done.')] }]);
    server.script(sub, [{ blocks: [bash(`node -e "setTimeout(()=>console.log('built'),2000)"`)] }, { blocks: [text('Build finished: built.')] }]);
    const s = startClaude({ server, prompt: `${lead}: dispatch the build`, version: VERSION, home: hookHome() });
    const st = stamper(s.streamPath);
    const sf = sessionFile(s);
    expect((await s.exited).code).toBe(0);
    await until(() => s.transcript().length > 0, 10_000, 'the transcript');
    save('bg-agent-completes', s, st.stop(), sf.stop());
  });

  it('main-retry-bash: 429s with retry-after 3 on the main session, a Bash call, a final answer', async () => {
    const marker = 'REC332-RETRY';
    server.script(marker, [
      [
        { status: 429, retryAfter: 3 },
        { status: 429, retryAfter: 3 },
        { blocks: [text('Building.'), bash(`node -e "setTimeout(()=>console.log('ok'),2000)"`)] },
      ],
      { blocks: [text('All done.')] },
    ]);
    const s = startClaude({ server, prompt: `${marker}: build`, version: VERSION, home: hookHome() });
    const st = stamper(s.streamPath);
    const sf = sessionFile(s);
    expect((await s.exited).code).toBe(0);
    await until(() => s.transcript().length > 0, 10_000, 'the transcript');
    save('main-retry-bash', s, st.stop(), sf.stop());
  });

  it('parked-on-background-command: a background subagent whose Bash call outlives its timeout is moved to the background; it parks, wakes, ends', async () => {
    const lead = 'REC332-PLEAD';
    const sub = 'REC332-PSUB';
    server.script(lead, [{ blocks: [agent(`${sub}: run the long build`)] }, { blocks: [text('Waiting.')] }, { blocks: [text('Done.')] }]);
    server.script(sub, [
      { blocks: [bash(`node -e "setTimeout(()=>console.log('built'),25000)"`, { timeout: 8000 })] },
      { blocks: [text('It moved to the background; waiting for it.')] },
      { blocks: [text('The build finished: built.')] },
    ]);
    const s = startClaude({ server, prompt: `${lead}: dispatch`, version: VERSION, home: hookHome() });
    const st = stamper(s.streamPath);
    const sf = sessionFile(s);
    expect((await s.exited).code).toBe(0);
    save('parked-on-background-command', s, st.stop(), sf.stop());
    expect(readdirSync(path.join(OUT, 'parked-on-background-command'))).toContain('hooks.ndjson');
  });
});
