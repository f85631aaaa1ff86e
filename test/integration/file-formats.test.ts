// Every file the watchdog writes for someone else to read matches its schema in src/contracts
// (emitted into schemas/): the real writer, a real temp dir, the file read back.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { commandFile, createCommandAdapter } from '../../src/act/agents/command.js';
import { createMailboxAdapter, requestFile } from '../../src/act/agents/mailbox.js';
import { launchFile, launchReplacement } from '../../src/act/agents/process-launch.js';
import { LockSchema } from '../../src/contracts/lock.js';
import { CommandRecordSchema, LaunchRecordSchema } from '../../src/contracts/markers.js';
import { RequestSchema } from '../../src/contracts/request.js';
import { realClock } from '../../src/deps.js';
import { acquireLock, readLock } from '../../src/journal/lock.js';
import { ObserveStoreLineSchema, STORE_HEADER } from '../../src/contracts/observe-store.js';
import { emptyHookState, isHookState } from '../../src/agents/claude-code/parse/parse-hook-activity.js';
import { emptyTranscriptState, isTranscriptState } from '../../src/agents/claude-code/parse/transcript-state.js';
import { TailStore } from '../../src/observe/read/tail-store.js';
import { cancelRequest, redispatchRequest } from '../helpers/agent-requests.js';
import { tempDir } from '../helpers/temp-dir.js';

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

describe('request files (mailbox adapter)', () => {
  it('a cancel request matches RequestSchema, with no redispatch fields', async () => {
    const req = cancelRequest(tempDir(), { agentId: 'worker-1@team', pid: 4242 });
    expect((await createMailboxAdapter({ clock: realClock }).cancel(req)).ok).toBe(true);
    const parsed = RequestSchema.strict().parse(readJson(requestFile(req, 'cancel')));
    expect(parsed).toMatchObject({ schema_version: '1', kind: 'cancel', key: req.key, epic_id: 'PROJ-1000', agent_id: 'worker-1@team' });
    // No process 4242 started with this task: the pid is withheld, and the request says why (issue 36 item 5).
    expect(parsed.pid).toBeUndefined();
    expect(parsed.pid_withheld).toMatch(/^pid 4242 /);
    expect(parsed.prompt).toBeUndefined();
  });

  it('a redispatch request matches RequestSchema and carries the attempt, checkpoint and prompt', async () => {
    const req = await redispatchRequest(tempDir());
    expect((await createMailboxAdapter({ clock: realClock }).redispatch(req)).ok).toBe(true);
    const parsed = RequestSchema.strict().parse(readJson(requestFile(req, 'redispatch')));
    expect(parsed).toMatchObject({
      kind: 'redispatch',
      redispatch_attempt: 1,
      recovery_task_id: req.recoveryTaskId,
      checkpoint_path: req.checkpointPath,
      prompt: req.prompt,
    });
  });
});

describe('the lock file', () => {
  it('matches LockSchema, and the one parser reads it back', async () => {
    const file = path.join(tempDir(), 'epics', 'PROJ-1000', 'watchdog.lock');
    const info = { pid: process.pid, run_id: 'run-1', started_at: '2026-04-02T10:00:00Z' };
    const lock = await acquireLock(file, info, 'PROJ-1000');
    const written = LockSchema.strict().parse(readJson(file));
    expect(written).toMatchObject(info);
    expect(await readLock(file)).toEqual(written);
    await lock.release();
    expect(await readLock(file)).toBeUndefined();
  });
});

describe('adapter marker files', () => {
  it('a command record matches CommandRecordSchema', async () => {
    const req = cancelRequest(tempDir());
    expect((await createCommandAdapter({ cancel_argv: [process.execPath, '-e', 'console.log("stopped")'] }, { clock: realClock }).cancel(req)).ok).toBe(true);
    expect(CommandRecordSchema.strict().parse(readJson(commandFile(req, 'cancel')))).toMatchObject({
      key: req.key,
      op: 'cancel',
      status: 'done',
      exit_code: 0,
      output_tail: 'stopped\n',
    });
  });

  it('a launch record matches LaunchRecordSchema', async () => {
    const req = await redispatchRequest(tempDir());
    const outcome = await launchReplacement(req, [process.execPath, '-e', ''], { clock: realClock });
    expect(outcome.ok).toBe(true);
    expect(LaunchRecordSchema.strict().parse(readJson(launchFile(req)))).toMatchObject({
      key: req.key,
      status: 'launched',
      pid: outcome.pid,
      recovery_task_id: req.recoveryTaskId,
    });
  });
});

describe('observe stores', () => {
  it.each([
    ['transcripts.json', isTranscriptState, emptyTranscriptState],
    ['hooks.json', isHookState, emptyHookState],
  ] as const)('%s: a header line, then entries matching ObserveStoreLineSchema that load back', async (name, isState, empty) => {
    const file = path.join(tempDir(), 'observe', name);
    const store = new TailStore<object>(file, isState as (v: unknown) => v is object);
    const entry = { cursor: { dev: 1, ino: 2, offset: 10, lineNo: 3, size: 10, mtimeMs: 5 }, state: empty(), usedAtMs: 7 };
    await store.save(new Map([['/a.jsonl', entry]]), 7);
    await store.save(new Map([['/b.jsonl', { ...entry, usedAtMs: 8 }]]), 8);
    const lines = readFileSync(file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown);
    expect(lines[0]).toEqual(STORE_HEADER);
    expect(lines).toHaveLength(3);
    for (const line of lines) ObserveStoreLineSchema.parse(line);
    expect([...(await new TailStore<object>(file, isState as (v: unknown) => v is object).load()).keys()]).toEqual(['/a.jsonl', '/b.jsonl']);
  });
});
