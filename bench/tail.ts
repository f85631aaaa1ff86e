// Reading a grown transcript (DESIGN §12): the observer reads only the bytes appended since the
// last check; the naive baseline re-reads and re-parses the whole file. Both in the same run.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Task } from '../src/contracts/state-file.js';
import { StatePaths } from '../src/files/paths.js';
import { createClaudeObserver } from '../src/agents/claude-code/read/claude-observer.js';
import { parseTranscriptText, summarizeTranscript } from '../src/agents/claude-code/parse/parse-transcript.js';

const SIZE_MB = 40;
const GROWTH_BYTES = 10 * 1024;
const ROUNDS = 10;

function record(i: number, t: number): string {
  const id = `toolu_${i}`;
  const call = {
    type: 'assistant',
    timestamp: new Date(t).toISOString(),
    agentId: 'a1',
    sessionId: 's1',
    message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: `/src/file-${i}.ts` } }] },
  };
  const result = {
    type: 'user',
    timestamp: new Date(t + 500).toISOString(),
    agentId: 'a1',
    sessionId: 's1',
    message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: 'x'.repeat(600) }] },
  };
  return JSON.stringify(call) + '\n' + JSON.stringify(result) + '\n';
}

export async function benchTail(): Promise<{ name: string; lines: string[] }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dw-bench-tail-'));
  try {
    const file = path.join(dir, 'agent-a1.jsonl');
    const t0 = Date.parse('2026-04-02T10:00:00Z');
    let i = 0;
    const chunk: string[] = [];
    let size = 0;
    writeFileSync(file, '');
    while (size < SIZE_MB * 1024 * 1024) {
      const r = record(i++, t0 + i * 1000);
      chunk.push(r);
      size += r.length;
      if (chunk.length >= 2000) appendFileSync(file, chunk.splice(0).join(''));
    }
    appendFileSync(file, chunk.join(''));
    const task: Task = { taskId: 't1', ticketId: 'P-1', status: 'in_progress', statusClass: 'in_flight', transcriptPath: file, agentId: 'a1' };
    const observer = createClaudeObserver({ paths: new StatePaths(dir), isPersistent: false, env: {} });
    const cold = performance.now();
    await observer.observe(task, t0);
    const coldMs = performance.now() - cold;
    const grow = () => {
      let added = '';
      while (added.length < GROWTH_BYTES) added += record(i++, t0 + i * 1000);
      appendFileSync(file, added);
    };
    const ours: number[] = [];
    const before = observer.stats().bytesRead;
    for (let k = 0; k < ROUNDS; k++) {
      grow();
      const t = performance.now();
      await observer.observe(task, t0);
      ours.push(performance.now() - t);
    }
    const bytesPerCheck = (observer.stats().bytesRead - before) / ROUNDS;
    const naive: number[] = [];
    for (let k = 0; k < 3; k++) {
      grow();
      const t = performance.now();
      summarizeTranscript(parseTranscriptText(readFileSync(file, 'utf8'), file).state);
      naive.push(performance.now() - t);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    return {
      name: `a ${SIZE_MB} MB transcript that grew by ${GROWTH_BYTES / 1024} KB since the last check`,
      lines: [
        `incremental tail: median ${med(ours).toFixed(2)} ms per check, ${Math.round(bytesPerCheck)} bytes read per check; cold start ${coldMs.toFixed(1)} ms (reads only the tail)`,
        `naive whole-file re-read + parse: median ${med(naive).toFixed(0)} ms; ratio ${(med(naive) / med(ours)).toFixed(0)}x`,
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
