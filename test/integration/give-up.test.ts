// An agent that gave up on the API (issue 10, cause 6), end to end through the real CLI: its
// transcript → a stall acted on at once (no window to wait out) → the redispatch request and its
// prompt → watchdog.json, `status` and `next`. The operator sees a failure, never "inactivity", and a
// context exhaustion gets the narrower prompt.
import { copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { readEvents, readWatchdogJson, writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/transcripts');
const EPIC = 'E-1';
const ago = (s: number) => new Date(Date.now() - s * 1000).toISOString();
const requestOf = (dir: string, task: string) =>
  JSON.parse(readFileSync(path.join(dir, 'epics', EPIC, 'requests', `${EPIC}__${task}__redispatch.redispatch.json`), 'utf8')) as Record<string, string>;

describe('an API give-up', () => {
  it('is acted on at once like a stall, reported as a failure, and "Prompt is too long" narrows the redispatch harder', async () => {
    const dir = tempDir();
    const transcript = (name: string) => {
      const file = path.join(dir, name);
      copyFileSync(path.join(FIXTURES, name), file);
      return file;
    };
    // Dispatched 30 s ago: far inside the 120 s window, so only the give-up can make these stalls.
    writeWave(dir, EPIC, ago(30), [
      { task_id: 't1', ticket_id: 'ENG-1', status: 'in_progress', transcript_path: transcript('prompt-too-long.jsonl') },
      { task_id: 't2', ticket_id: 'ENG-2', status: 'in_progress', transcript_path: transcript('api-error-overloaded.jsonl') },
    ]);
    const r = await runCli(['--epic-id', EPIC, '--state-dir', dir, '--once', '--action', 'redispatch'], { env: { LINEAR_API_KEY: '' } });
    expect(r.code, r.stderr).toBe(3);

    const stalls = readEvents(dir).filter((e) => e.event === 'stall_detected');
    expect(stalls).toEqual([
      expect.objectContaining({
        task_id: 't1',
        stall_reason: 'context_exhausted',
        action_taken: 'redispatch',
        reason: expect.stringContaining('the agent ran out of context: Prompt is too long'),
      }),
      expect.objectContaining({
        task_id: 't2',
        stall_reason: 'api_gave_up',
        action_taken: 'redispatch',
        reason: expect.stringContaining('the agent gave up on an API error (overloaded)'),
      }),
    ]);
    expect(
      readEvents(dir)
        .filter((e) => e.event === 'redispatch')
        .map((e) => e.task_id),
    ).toEqual(['t1', 't2']);

    const ctx = requestOf(dir, 't1');
    expect(ctx.reason).toBe('failed: context_exhausted, the agent ran out of context ("Prompt is too long")');
    expect(ctx.prompt).toContain('The previous agent ran out of context ("Prompt is too long") and stopped');
    expect(ctx.prompt).toContain('CONTEXT IS THE CONSTRAINT');
    const api = requestOf(dir, 't2');
    expect(api.reason).toBe('failed: api_gave_up, the agent gave up on an API error');
    expect(api.prompt).toContain('The previous agent stopped on an API error it gave up on');
    expect(api.prompt).not.toContain('CONTEXT IS THE CONSTRAINT');

    const doc = readWatchdogJson(dir, EPIC);
    expect(doc.stalls_detected.map((s: { stall_reason: string }) => s.stall_reason)).toEqual(['context_exhausted', 'api_gave_up']);
    const status = await runCli(['status', '--epic-id', EPIC, '--state-dir', dir]);
    expect(status.stdout).toMatch(/^t1 .*STALLED.*the agent ran out of context/m);
    expect(status.stdout).toMatch(/^t2 .*STALLED.*the agent gave up on an API error/m);
    expect(status.stdout).not.toContain('no progress');
    const next = await runCli(['next', '--epic-id', EPIC, '--state-dir', dir], { env: { LINEAR_API_KEY: '' } });
    expect(next.code, next.stderr).toBe(10);
    expect(next.stdout).toMatch(
      /^request redispatch E-1:t1:redispatch: .* Why: failed: context_exhausted, the agent ran out of context \("Prompt is too long"\)\.$/m,
    );
    expect(next.stdout).toMatch(/^request redispatch E-1:t2:redispatch: .* Why: failed: api_gave_up, the agent gave up on an API error\.$/m);
  });
});
