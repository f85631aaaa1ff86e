// This epic's redispatch of a ticket is folded at start-up without reading back the other epics'
// redispatches of it that came before (journal/redispatch-refs.ts): the count and the last
// recovery mode still equal a whole fold's, whatever the order of own and other lines, valid or
// not, and through a summary written between them.
import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { foldHistory } from '../../src/core/history.js';
import { readDispatchLog } from '../../src/journal/dispatch-log.js';
import { loadHistory } from '../../src/journal/log-summary.js';
import { StatePaths } from '../../src/files/paths.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'E-1';
let n = 0;
/** A redispatch line as DispatchLog writes it (so another epic's is kept by reference); `isValid: false` breaks its schema. */
const redispatch = (epic: string, ticket: string, mode: 'fresh' | 'resume' | undefined, isValid = true) =>
  JSON.stringify({
    timestamp_utc: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`,
    event: 'redispatch',
    epic_id: epic,
    run_id: 'r',
    ticket_id: ticket,
    task_id: `t${++n}`,
    agent_id: `a${n}`,
    key: `${epic}:t${n}:redispatch`,
    redispatch_attempt: isValid ? 1 : 'one',
    recovery_task_id: `t${n}-r1`,
    ...(mode ? { mode } : {}),
  });

async function expectSameAsFold(paths: StatePaths, tickets: string[]) {
  const whole = foldHistory((await readDispatchLog(paths)).events, EPIC);
  const got = (await loadHistory(paths, EPIC, { isWritable: true })).history;
  for (const t of tickets) {
    expect([t, got.redispatchCount.get(t), got.lastRecoveryMode.get(t)]).toEqual([t, whole.redispatchCount.get(t), whole.lastRecoveryMode.get(t)]);
  }
}

describe('redispatch counts and modes at start-up', () => {
  it("equal a whole fold's with this epic's redispatches between other epics' ones, across a summary", async () => {
    const dir = tempDir();
    const paths = new StatePaths(dir);
    mkdirSync(paths.dispatchLogDir(), { recursive: true });
    const file = path.join(paths.dispatchLogDir(), '2026-01-01.ndjson');
    const append = (...lines: string[]) => appendFileSync(file, lines.map((l) => l + '\n').join(''));
    const tickets = ['P-1', 'P-2', 'P-3', 'P-4', 'P-5'];
    // P-1: other (resume), own (fresh), other (resume) → resume, 3.
    // P-2: other (resume), own (resume), other invalid (fresh) → resume, 2.
    // P-3: other (fresh), other (resume), own (fresh) → fresh, 3.
    // P-4: own (resume), other invalid → resume, 1.  P-5: other only.
    append(redispatch('E-2', 'P-1', 'resume'), redispatch('E-2', 'P-2', 'resume'), redispatch('E-3', 'P-3', undefined), redispatch('E-3', 'P-3', 'resume'));
    append(redispatch(EPIC, 'P-1', 'fresh'), redispatch(EPIC, 'P-2', 'resume'), redispatch(EPIC, 'P-4', 'resume'));
    await expectSameAsFold(paths, tickets);
    // The summary now holds P-1's and P-2's earlier lines as count-only: more lines after it.
    append(
      redispatch('E-2', 'P-1', 'resume'),
      redispatch('E-2', 'P-2', 'fresh', false),
      redispatch(EPIC, 'P-3', 'fresh'),
      redispatch('E-4', 'P-4', 'fresh', false),
      redispatch('E-4', 'P-5', 'resume'),
    );
    await expectSameAsFold(paths, tickets);
    const got = (await loadHistory(paths, EPIC, { isWritable: false })).history;
    expect(tickets.map((t) => [got.redispatchCount.get(t), got.lastRecoveryMode.get(t)])).toEqual([
      [3, 'resume'],
      [2, 'resume'],
      [3, 'fresh'],
      [1, 'resume'],
      [1, 'resume'],
    ]);
  });
});
