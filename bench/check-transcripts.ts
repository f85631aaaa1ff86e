// One check of 200 in-flight Claude Code agents observed through their transcripts, each of
// which grew by about 1 KB since the last check, against re-reading every transcript whole.
// Also reports memory after a cold start on 200 × 2 MB of transcripts (bounded: tails only).
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { stringify } from 'yaml';
import { newCheckMemory, runCheck, type CheckEnv } from '../src/check.js';
import { writeFileAtomic } from '../src/files/atomic-write.js';
import { emptyHistory } from '../src/core/history.js';
import { StatePaths } from '../src/files/paths.js';
import { createClaudeObserver } from '../src/agents/claude-code/read/claude-observer.js';
import { parseTranscriptText, summarizeTranscript } from '../src/agents/claude-code/parse/parse-transcript.js';
import { resolveOptions } from '../src/options.js';

const TASKS = 200;
const FILE_BYTES = 2 * 1024 * 1024;

// Real assistant records carry the API message id (a lazy cold start relies on it).
const line = (agent: string, i: number, t: number) =>
  JSON.stringify({
    type: 'assistant',
    timestamp: new Date(t).toISOString(),
    agentId: agent,
    sessionId: 's',
    message: { id: `msg_${agent}_${i}`, role: 'assistant', content: [{ type: 'tool_use', id: `u${i}`, name: 'Read', input: { file_path: `/src/${i}.ts` } }] },
  }) +
  '\n' +
  JSON.stringify({
    type: 'user',
    timestamp: new Date(t + 200).toISOString(),
    agentId: agent,
    sessionId: 's',
    message: { role: 'user', content: [{ tool_use_id: `u${i}`, type: 'tool_result', content: 'y'.repeat(700) }] },
  }) +
  '\n';

export async function benchCheckTranscripts(): Promise<{ name: string; lines: string[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dw-bench-tx-'));
  try {
    const now = Date.parse('2026-04-02T12:00:00Z');
    const files: string[] = [];
    const block = Array.from({ length: 200 }, (_, i) => line('aX', i, now - 60_000)).join('');
    for (let k = 0; k < TASKS; k++) {
      const f = path.join(dir, `agent-a${k}.jsonl`);
      writeFileSync(f, block.replaceAll('"aX"', `"a${k}"`).repeat(Math.ceil(FILE_BYTES / block.length)));
      files.push(f);
    }
    const tasks = files.map((f, k) => ({ task_id: `t${k}`, ticket_id: `P-${k}`, status: 'in_progress', agent_id: `a${k}`, transcript_path: f }));
    const paths = new StatePaths(dir);
    await writeFileAtomic(paths.stateFile('E-1'), stringify({ current_wave: { dispatched_at: new Date(now - 3600_000).toISOString(), tasks } }));
    const opts = await resolveOptions({ epicId: 'E-1', stateDir: dir, action: 'report' }, {}, dir);
    const observer = createClaudeObserver({ paths, isPersistent: false, env: {} });
    const env: CheckEnv = { paths, opts, observers: [observer], history: emptyHistory(), runId: 'bench', version: 'bench', pid: process.pid };

    const c0 = performance.now();
    let memory = (await runCheck(env, newCheckMemory(), now)).memory;
    const coldMs = performance.now() - c0;
    const heapMb = process.memoryUsage().heapUsed / 1024 / 1024;

    const ours: number[] = [];
    let i = 10_000;
    // 21 rounds: the first few pay for warming up (the cold start read only tails), the median does not.
    for (let round = 0; round < 21; round++) {
      for (const [k, f] of files.entries()) appendFileSync(f, line(`a${k}`, i++, now));
      const t = performance.now();
      const r = await runCheck(env, memory, now + 1000);
      memory = r.memory;
      ours.push(performance.now() - t);
      if (!r.ok || r.verdicts.some((v) => v.kind !== 'healthy')) throw new Error('bench: unexpected verdicts');
    }
    const t = performance.now();
    for (const f of files) summarizeTranscript(parseTranscriptText(readFileSync(f, 'utf8'), f).state);
    const naiveMs = performance.now() - t;
    const med = [...ours].sort((a, b) => a - b)[10]!;
    return {
      name: `one check of ${TASKS} agents observed through their transcripts (${FILE_BYTES / 1024 / 1024} MB each, ~1.5 KB appended per check)`,
      lines: [
        `incremental: median ${med.toFixed(0)} ms per check (${((med * 1000) / TASKS).toFixed(0)} µs per agent); cold start ${coldMs.toFixed(0)} ms`,
        `naive: re-read and re-parse every transcript: ${naiveMs.toFixed(0)} ms; ratio ${(naiveMs / med).toFixed(0)}x`,
        `memory: heap ${heapMb.toFixed(0)} MB after the cold start, peak RSS of the whole bench process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB, for ${(TASKS * FILE_BYTES) / 1024 / 1024} MB of transcripts (only their tails are read)`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
