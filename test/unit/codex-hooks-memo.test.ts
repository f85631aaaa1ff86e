// The Codex hook observer keeps a memo (agents/codex/read/codex-hooks.ts): while a row's hook file
// (or its absence) holds, a steady check gets the same parts back with no read, so the Codex
// harness's combined observer can reuse the row; a new line is read at once.
import { appendFileSync, mkdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createCodexHookObserver } from '../../src/agents/codex/read/codex-hooks.js';
import { normalizeTask } from '../../src/contracts/state-file.js';
import { StatePaths } from '../../src/files/paths.js';
import { TailReader } from '../../src/observe/read/tail-file.js';
import { tempDir } from '../helpers/temp-dir.js';

const THREAD = '01a2461c-a06c-7772-8000-00000000beef';
const line = (ts: string, event: string) => `${JSON.stringify({ ts, event, session_id: THREAD })}\n`;

describe('the Codex hook observer', () => {
  it('gives the same parts back while the file holds, and reads a new line at once', async () => {
    const paths = new StatePaths(tempDir());
    mkdirSync(paths.activityDir(), { recursive: true });
    const file = paths.activityFile(THREAD);
    appendFileSync(file, line('2026-12-05T12:00:00.000Z', 'UserPromptSubmit'));
    const reader = new TailReader();
    const o = createCodexHookObserver(paths, reader);
    const task = normalizeTask({ task_id: 'cx', ticket_id: 'CX-1', status: 'in_progress', agent: 'codex', session_id: THREAD } as never, undefined);
    o.beginCheck?.(0);
    const first = await o.observe(task, 1_000);
    expect(first).toHaveLength(1);
    // The next check: nothing new, so no read and the very same array (a steady check compares by identity).
    o.beginCheck?.(2_000);
    const opens = reader.opens;
    expect(o.observeUnchanged?.(task, 2_000, true)).toBe(first);
    expect(reader.opens).toBe(opens);
    // A new line: the memo no longer vouches, and the read sees the Stop.
    appendFileSync(file, line('2026-12-05T12:00:03.000Z', 'Stop'));
    o.beginCheck?.(4_000);
    expect(o.observeUnchanged?.(task, 4_000, true)).toBeUndefined();
    const second = await o.observe(task, 4_000);
    expect(second).not.toBe(first);
    expect(second[0]).toMatchObject({ source: 'hooks' });
  });

  it('a row with no hook file is reused too (most rows: hooks are optional)', async () => {
    const paths = new StatePaths(tempDir());
    mkdirSync(paths.activityDir(), { recursive: true });
    const o = createCodexHookObserver(paths);
    const task = normalizeTask({ task_id: 'cx', ticket_id: 'CX-1', status: 'in_progress', agent: 'codex', session_id: THREAD } as never, undefined);
    o.beginCheck?.(0);
    expect(await o.observe(task, 1_000)).toEqual([]);
    o.beginCheck?.(2_000);
    expect(o.observeUnchanged?.(task, 2_000)).toEqual([]);
  });
});
