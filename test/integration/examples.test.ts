// The bash consumer in examples/ (docs/orchestrator.md §9) runs as a user would run it: two
// tickets through a `claude` that is the fake, one stalls once (silent mid-answer: the link to the
// API), is resumed in its own session with the request's resume prompt and finishes; the script
// exits 0 when `next` says the wave is complete.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { BIN, REPO_ROOT, exited } from '../helpers/cli.js';
import { readEvents } from '../helpers/state.js';
import { killFakeClaudes } from '../helpers/spawn-fixture.js';
import { tempDir } from '../helpers/temp-dir.js';

const EPIC = 'PROJ-2000';
const FAKE_CLAUDE = path.join(REPO_ROOT, 'test', 'fixtures', 'procs', 'fake-claude.mjs');
const SCRIPT = path.join(REPO_ROOT, 'examples', 'claude-p-loop.sh');
const HAS_JQ = spawnSync('jq', ['--version']).status === 0;

describe('examples/claude-p-loop.sh', () => {
  it.runIf(HAS_JQ)(
    "dispatches, resumes the stalled ticket's session with the request's resume prompt, and exits 0 when the wave is complete",
    async () => {
      const dir = tempDir('dw-bash-');
      const state = path.join(dir, '.onex_state');
      mkdirSync(state);
      writeFileSync(path.join(state, 'watchdog.config.yaml'), 'requests:\n  deadline_seconds: 30\n');
      writeFileSync(
        path.join(dir, 'tickets.tsv'),
        'PROJ-2001\tImplement PROJ-2001: add the endpoint.\nPROJ-2002\tImplement PROJ-2002: fix the "quoted" bug; it\'s urgent.\n',
      );
      writeFileSync(path.join(dir, 'plan.json'), JSON.stringify({ 'PROJ-2002': ['stall', 'work'] }));
      const env = {
        ...process.env,
        ONEX_STATE_DIR: state,
        CLAUDE: FAKE_CLAUDE,
        DISPATCH_WATCHDOG: BIN,
        FAKE_CLAUDE_PLAN: path.join(dir, 'plan.json'),
        FAKE_CLAUDE_LOG: path.join(dir, 'launches.ndjson'),
        FAKE_CLAUDE_WORK_MS: '1000',
        CLAUDE_CONFIG_DIR: path.join(dir, 'no-claude'),
      };
      const child = spawn(SCRIPT, [EPIC, 'tickets.tsv', '--timeout', '1', '--check-interval', '0.25'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
      // A failed run must not leave the script or a stalled fake behind.
      onTestFinished(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        killFakeClaudes(
          existsSync(env.FAKE_CLAUDE_LOG)
            ? readFileSync(env.FAKE_CLAUDE_LOG, 'utf8')
                .trim()
                .split('\n')
                .map((l) => (JSON.parse(l) as { pid: number }).pid)
            : [],
        );
      });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const { code } = await exited(child);
      expect(code, out).toBe(0);
      expect(out).toContain('[orchestrator] wave complete: t1=completed t2=cancelled t2-r1=completed');

      const launches = readFileSync(path.join(dir, 'launches.ndjson'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { ticket: string; behaviour: string; resumed?: string });
      expect(launches.map((l) => `${l.ticket}:${l.behaviour}`).sort()).toEqual(['PROJ-2001:work', 'PROJ-2002:stall', 'PROJ-2002:work']);
      const events = readEvents(state).filter((e) => e.epic_id === EPIC);
      // Silent after its first words: the link to the API, resumed. (On a machine so loaded that the
      // fake wrote nothing within the 1 s window it never started: a fresh agent, nothing to resume.)
      const first = events.find((e) => e.event === 'stall_detected' && e.task_id === 't2');
      const isResume = first?.stall_reason === 'inactivity';
      expect(events.filter((e) => e.event === 'redispatch').map((e) => [e.recovery_task_id, e.mode])).toEqual([['t2-r1', isResume ? 'resume' : undefined]]);
      expect(events.filter((e) => e.event === 'request_answered').map((e) => [e.key, e.how])).toEqual([['PROJ-2000:t2:redispatch', 'row']]);
      // The old row handed its session on to the new one: nothing to reconcile about it. (t1's row may
      // lag its agent's end by a check on a loaded machine: the script writes it after the exit.)
      expect(events.filter((e) => (e.event === 'reconcile_requested' || e.event === 'truth_inconsistent') && e.task_id === 't2')).toEqual([]);
      // The replacement is the stalled session resumed, with the request's resume prompt (which names the ticket).
      const request = JSON.parse(
        readFileSync(path.join(state, 'epics', EPIC, 'requests', `PROJ-2000__t2__redispatch.${isResume ? 'resume' : 'redispatch'}.json`), 'utf8'),
      ) as { session_id: string; resume_prompt?: string; prompt: string; checkpoint_path: string };
      if (isResume) expect(request.resume_prompt).toMatch(/^Continue where you left off on PROJ-2002/);
      expect(launches.filter((l) => l.ticket === 'PROJ-2002').map((l) => l.resumed)).toEqual([undefined, isResume ? request.session_id : undefined]);
      expect(request.prompt).toContain(request.checkpoint_path); // the fresh prompt (a resume's fallback)
    },
    60_000,
  );

  it.skipIf(HAS_JQ)('needs jq, which this machine lacks: skipped', () => {});
});
