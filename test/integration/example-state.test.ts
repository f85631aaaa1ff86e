// The example state dir (issue 33 item 6): .onex_state.example holds the inputs (PROJ-1000 in
// shape A with a healthy, a stalled, a long-Bash, a rate-limited, a blocked and a merged row;
// PROJ-2000 in epic-team's shape C with a CI-polling row and a stalled one; watchdog.config.yaml)
// and, under after-a-run/, what one watchdog run at 10:10 writes: watchdog.json, the dispatch-log
// day, a recovery checkpoint, a redispatch request, an escalation notice and a friction note.
// This test runs the real watchdog on a copy (in-process, on a manual clock) and compares what it
// wrote with after-a-run/, so the example cannot go stale. To regenerate it after a change:
//   sh scripts/example-outputs.sh        (UPDATE_EXAMPLE=1 npx vitest run test/integration/example-state.test.ts)
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { startSession } from '../helpers/session.js';
import { tempDir } from '../helpers/temp-dir.js';

const EXAMPLE = path.join(REPO_ROOT, '.onex_state.example');
const AFTER = path.join(EXAMPLE, 'after-a-run');
const NOW = Date.parse('2026-04-02T10:10:00Z');

/** Every file under `dir`, relative, sorted. */
function files(dir: string, rel = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((n) => {
      const p = path.join(dir, n);
      return statSync(p).isDirectory() ? files(p, path.join(rel, n)) : [path.join(rel, n)];
    });
}

/** What differs from run to run (ids, pids, where the copy lives) made fixed. */
function normalize(text: string, root: string): string {
  return text
    .replaceAll(root, '<state-dir>')
    .replace(/"run_id":"[^"]*"/g, '"run_id":"<run-id>"')
    .replace(/"pid":\d+/g, '"pid":0')
    .replace(/"run_id": "[^"]*"/g, '"run_id": "<run-id>"')
    .replace(/"pid": \d+/g, '"pid": 0');
}

/** What a run writes (the inputs, lock and the watchdog's private caches left out). */
const isOutput = (f: string) => !f.endsWith('state.yaml') && f !== 'watchdog.config.yaml' && !f.startsWith('observe') && !f.endsWith('watchdog.lock');

async function runExample(): Promise<Map<string, string>> {
  const dir = tempDir();
  cpSync(path.join(EXAMPLE, 'epics'), path.join(dir, 'epics'), { recursive: true });
  cpSync(path.join(EXAMPLE, 'watchdog.config.yaml'), path.join(dir, 'watchdog.config.yaml'));
  const clock = new ManualClock(NOW);
  // PROJ-1000 with the config's policy: its stalled agent is redispatched (a checkpoint and a request).
  const a = await startSession(clock, { epicId: 'PROJ-1000', stateDir: dir, once: true });
  expect(await a.done).toBe(3);
  // PROJ-2000 with no redispatch left: its stalled ticket is escalated (a friction note and a notice).
  const b = await startSession(clock, { epicId: 'PROJ-2000', stateDir: dir, once: true, maxRedispatches: 0 });
  expect(await b.done).toBe(3);
  const out = new Map<string, string>();
  for (const f of files(dir).filter(isOutput)) out.set(f, normalize(readFileSync(path.join(dir, f), 'utf8'), dir));
  return out;
}

describe('the example state dir', () => {
  it('holds every exemption, a config, a shape-C state file and what a run writes, as a run writes it today', async () => {
    const produced = await runExample();
    if (process.env.UPDATE_EXAMPLE) {
      rmSync(AFTER, { recursive: true, force: true });
      for (const [f, text] of produced) {
        mkdirSync(path.dirname(path.join(AFTER, f)), { recursive: true });
        writeFileSync(path.join(AFTER, f), text);
      }
    }
    // Each kind of output is there.
    const names = [...produced.keys()];
    for (const kind of [
      /^epics\/PROJ-1000\/watchdog\.json$/,
      /^dispatch-log\/2026-04-02\.ndjson$/,
      /^pipeline_checkpoints\/PROJ-1002\/recovery-1\.yaml$/,
      /^epics\/PROJ-1000\/requests\/.*\.redispatch\.json$/,
      /^friction\/.*PROJ-2003.*\.md$/i,
    ]) {
      expect(
        names.some((n) => kind.test(n)),
        `${kind} in ${names.join(', ')}`,
      ).toBe(true);
    }
    // And each is what a run writes today.
    expect(files(AFTER)).toEqual(names);
    for (const [f, text] of produced) expect(readFileSync(path.join(AFTER, f), 'utf8'), f).toBe(text);
    // Every exemption of the row-only rules shows in the inputs' judgment.
    const exemptions = new Set(
      ['PROJ-1000', 'PROJ-2000'].flatMap((e) =>
        (JSON.parse(produced.get(`epics/${e}/watchdog.json`)!) as { tasks: { exemptions: string[] }[] }).tasks.flatMap((t) => t.exemptions),
      ),
    );
    expect([...exemptions].sort()).toEqual(['bash_long_timeout', 'ci_polling', 'rate_limit']);
  });
});
