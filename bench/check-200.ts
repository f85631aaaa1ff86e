// How long one check of 200 in-flight tasks takes (state file read + parse + assess + plan +
// watchdog.json write), against a naive baseline measured in the same run: the same
// verdicts, but with the state file re-parsed once per task as a per-task poller would.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { stringify } from 'yaml';
import { readFile } from 'node:fs/promises';
import { newCheckMemory, runCheck, type CheckEnv } from '../src/check.js';
import { parseStateFile } from '../src/contracts/state-file.js';
import { assess } from '../src/core/assess.js';
import { emptyHistory } from '../src/core/history.js';
import { StatePaths } from '../src/files/paths.js';
import { mergeObservations } from '../src/observe/parse/observation-merge.js';
import { observeRow } from '../src/observe/parse/observe-row.js';
import { resolveOptions } from '../src/options.js';
import { writeFileAtomic } from '../src/files/atomic-write.js';

const TASKS = 200;
const RUNS = 30;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function benchCheck200(): Promise<{ name: string; lines: string[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dw-bench-'));
  try {
    const now = Date.parse('2026-04-02T12:00:00Z');
    const tasks = Array.from({ length: TASKS }, (_, i) => ({
      task_id: `t${i}`,
      ticket_id: `P-${1000 + i}`,
      status: 'in_progress',
      last_activity_ts: new Date(now - (i % 300) * 1000).toISOString(),
      last_tool_name: i % 3 === 0 ? 'Bash' : 'Edit',
      last_tool_timeout_ms: i % 3 === 0 ? 600_000 : undefined,
      last_output: i % 7 === 0 ? 'Rate limit hit, retrying' : 'working',
    }));
    const paths = new StatePaths(dir);
    await writeFileAtomic(paths.stateFile('E-1'), stringify({ current_wave: { dispatched_at: new Date(now - 3600_000).toISOString(), tasks } }));
    const opts = await resolveOptions({ epicId: 'E-1', stateDir: dir, action: 'report' }, {}, dir);
    const env: CheckEnv = { paths, opts, observers: [], history: emptyHistory(), runId: 'bench', version: 'bench', pid: process.pid };

    const ours: number[] = [];
    let memory = newCheckMemory();
    for (let i = 0; i < RUNS; i++) {
      const t = performance.now();
      const r = await runCheck(env, memory, now);
      memory = r.memory;
      ours.push(performance.now() - t);
      if (!r.ok || r.verdicts.length !== TASKS) throw new Error('bench check failed');
    }
    const naive: number[] = [];
    for (let i = 0; i < Math.min(RUNS, 5); i++) {
      const t = performance.now();
      for (let k = 0; k < TASKS; k++) {
        // A per-task poller reads and parses the file each time (readWave would hit the stat cache).
        const file = paths.stateFile('E-1');
        const parsed = parseStateFile(await readFile(file, 'utf8'), file);
        if (!parsed.ok) throw parsed.error;
        const wave = parsed.value;
        const task = wave.tasks[k]!;
        assess(task, mergeObservations([observeRow(task)]), opts.policy, now);
      }
      naive.push(performance.now() - t);
    }
    const m = median(ours);
    const n = median(naive);
    return {
      name: `one check of ${TASKS} in-flight tasks (row evidence)`,
      lines: [
        `median ${m.toFixed(1)} ms per check over ${RUNS} runs (${((m * 1000) / TASKS).toFixed(0)} µs per task)`,
        `naive per-task re-read baseline: median ${n.toFixed(1)} ms; ratio ${(n / m).toFixed(1)}x`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
