// The Codex observer's memo (issue 35 item 5), on a real `codex exec --json` 0.171.0 session: while
// the rollout, the stdout and the child rollouts keep their size and mtime and the thread's owner
// lives, a check reuses the last parts (observeUnchanged: a stat per file and a signal 0, no read,
// no /proc/locks scan, no parse); a record appended, or the owner gone, makes it observe afresh.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodexObserver } from '../../src/agents/codex/read/codex-observer.js';
import { normalizeTask } from '../../src/contracts/state-file.js';
import { codexSkip, startCodex, until } from '../helpers/codex-session.js';
import { execCommand, say, startResponsesServer, type ResponsesServer } from '../helpers/responses-server.js';
import { tempDir } from '../helpers/temp-dir.js';

describe.skipIf(codexSkip !== undefined)(`Codex observer memo (skipped: ${codexSkip ?? 'no'})`, () => {
  let server: ResponsesServer;
  beforeAll(async () => (server = await startResponsesServer()));
  afterAll(() => server.close());

  it('an unchanged rollout with a live owner is not read or parsed again; a new record or a dead owner is', async () => {
    // The command runs until the test lets it end: its call stays open through the steady checks
    // however slow the machine (a 4 s sleep ended under CPU hogs between two of them once).
    const release = path.join(tempDir(), 'release');
    server.script('CX-MEMO', [
      { items: [execCommand(`while [ ! -e ${release} ]; do sleep 0.1; done; echo hi`, { yieldMs: 30_000 })] },
      { items: [say('done')] },
    ]);
    const s = startCodex({ server, prompt: 'CX-MEMO run it' });
    const thread = await s.threadId;
    await until(() => s.rollout().some((r) => r.payload?.name === 'exec_command') || undefined, 'the open exec_command');
    const task = normalizeTask(
      { ticket_id: 'CX-M', status: 'in_progress', agent: 'codex', session_id: thread, pid: s.pid, codex_home: s.codexHome, output_path: s.outputPath } as never,
      Date.now(),
    );
    const observer = createCodexObserver({ env: {} });
    // The first observe may race the records written with the call (token_usage_record): observe until two agree.
    let first = await observer.observe(task, Date.now());
    for (let again = await observer.observe(task, Date.now()); again !== first; again = await observer.observe(task, Date.now())) first = again;
    const before = observer.stats();
    // Steady: the same parts, by identity, with nothing read and nothing built.
    expect(observer.observeUnchanged!(task, Date.now())).toBe(first);
    expect(await observer.observe(task, Date.now())).toBe(first);
    expect(observer.stats()).toEqual(before);
    expect(first[0]).toMatchObject({ isProcessAlive: true, lastTool: { name: 'exec_command', isOpen: true } });
    // Another row object (the state file re-read) is observed afresh.
    expect(observer.observeUnchanged!({ ...task }, Date.now())).toBeUndefined();
    // The command ends and the turn completes: the memo no longer holds, and the new parts say so.
    writeFileSync(release, '');
    expect((await s.exited).code).toBe(0);
    expect(observer.observeUnchanged!(task, Date.now())).toBeUndefined();
    const after = await observer.observe(task, Date.now());
    expect(after).not.toBe(first);
    expect(after[0]?.finished).toMatchObject({ kind: 'task_complete' });
    expect(observer.stats().reads).toBeGreaterThan(before.reads);
  });
});
