// Child process of the fleet bench: `node fleet-child.js <ours|naive> <stateDir> <claudeDir> <agents> <checks> [grow-first]`.
// ours: a cold first check, then `checks` steady checks (a few KB appended to 3 agents before
// each), as the loop runs them (positions persisted, watchdog.json written, log journaled).
// naive: the same checks re-reading and re-parsing every transcript and the state file.
// Prints one JSON line: timings (ms, CPU ms) and this process's peak RSS.
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { newCheckMemory, runCheck, type CheckEnv } from '../src/check.js';
import { emptyHistory } from '../src/core/history.js';
import { DispatchLog } from '../src/journal/dispatch-log.js';
import { StatePaths } from '../src/files/paths.js';
import { createClaudeObserver } from '../src/agents/claude-code/read/claude-observer.js';
import { parseTranscriptText, summarizeTranscript } from '../src/agents/claude-code/parse/parse-transcript.js';
import { parseStateFile } from '../src/contracts/state-file.js';
import { resolveOptions } from '../src/options.js';
import { FLEET_NOW as DEFAULT_NOW, transcriptLines } from './fleet.js';

// The fleet's moment (FLEET_NOW_MS: a fleet generated at another one, as bench/scale.ts does).
const FLEET_NOW = Number(process.env.FLEET_NOW_MS ?? DEFAULT_NOW);

const [mode, stateDir, claudeDir, agentsArg, checksArg, growFirst] = process.argv.slice(2);
const agents = Number(agentsArg);
const checks = Number(checksArg);
const project = path.join(claudeDir!, 'projects', '-work-repo');
const fileOf = (k: number) => path.join(project, `sess-${Math.floor(k / 20)}`, 'subagents', `agent-a${k}.jsonl`);

const cpuMs = (since: NodeJS.CpuUsage) => {
  const u = process.cpuUsage(since);
  return (u.user + u.system) / 1000;
};

// Distinct ids per process, so a restarted run appends new calls.
let seq = 1_000_000 + (process.pid % 1000) * 10_000;
/** A few KB appended across three agents, as between two checks of a steady wave. */
function grow(round: number) {
  for (const k of [round * 7, round * 13 + 1, round * 31 + 2]) {
    const a = k % agents;
    appendFileSync(fileOf(a), transcriptLines(`a${a}`, `sess-${Math.floor(a / 20)}`, seq++, FLEET_NOW + round * 1000));
  }
}

async function ours() {
  const paths = new StatePaths(stateDir!);
  // FLEET_STALL_WINDOW: a fleet that took long to write (10,000 agents on a loaded machine) stays inside its window.
  const opts = await resolveOptions(
    { epicId: 'E-1', stateDir, action: 'report', ...(process.env.FLEET_STALL_WINDOW ? { stallWindow: Number(process.env.FLEET_STALL_WINDOW) } : {}) },
    {},
    stateDir!,
  );
  const observer = createClaudeObserver({ paths, claudeConfigDir: claudeDir, env: {} });
  const log = new DispatchLog(paths, 'E-1', 'bench', () => FLEET_NOW);
  const env: CheckEnv = { paths, opts, observers: [observer], history: emptyHistory(), log, runId: 'bench', version: 'bench', pid: process.pid };
  // A restart: three agents grew while the watchdog was down.
  if (growFirst) grow(100);
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const cold = await runCheck(env, newCheckMemory(), FLEET_NOW);
  let memory = cold.memory;
  const coldWall = performance.now() - w0;
  const coldCpu = cpuMs(c0);
  const coldBytes = observer.stats().bytesRead;
  const coldPrefixScans = observer.stats().prefixScans;
  const maxRssAfterColdMb = process.resourceUsage().maxRSS / 1024;
  if (!cold.ok || cold.verdicts.some((v) => v.kind !== 'healthy'))
    throw new Error(`fleet: unexpected cold verdicts ${cold.ok ? [...new Set(cold.verdicts.map((v) => v.kind))] : cold.error.message}`);
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let round = 1; round <= checks; round++) {
    grow(round);
    const c = process.cpuUsage();
    const t = performance.now();
    const r = await runCheck(env, memory, FLEET_NOW + round * 1000);
    memory = r.memory;
    wall.push(performance.now() - t);
    cpu.push(cpuMs(c));
    // A steady wave: every agent healthy, nothing to log (a stalling fleet would measure something else).
    if (!r.ok || r.verdicts.some((v) => v.kind !== 'healthy'))
      throw new Error(`fleet: unexpected steady verdicts ${r.ok ? [...new Set(r.verdicts.map((v) => v.kind))] : r.error.message}`);
  }
  await observer.flush(FLEET_NOW + checks * 1000);
  return {
    coldWall,
    coldCpu,
    wall,
    cpu,
    bytesRead: coldBytes,
    prefixScans: coldPrefixScans,
    maxRssAfterColdMb,
    heapAfterMb: process.memoryUsage().heapUsed / 1024 ** 2,
  };
}

function naive() {
  const stateFile = path.join(stateDir!, 'epics', 'E-1', 'state.yaml');
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let round = 1; round <= checks; round++) {
    grow(round);
    const c = process.cpuUsage();
    const t = performance.now();
    const wave = parseStateFile(readFileSync(stateFile, 'utf8'), stateFile);
    if (!wave.ok) throw wave.error;
    const parents = new Set<string>();
    for (let k = 0; k < agents; k++) {
      const f = fileOf(k);
      summarizeTranscript(parseTranscriptText(readFileSync(f, 'utf8'), f).state);
      parents.add(path.join(project, `sess-${Math.floor(k / 20)}.jsonl`));
    }
    for (const f of parents) parseTranscriptText(readFileSync(f, 'utf8'), f);
    wall.push(performance.now() - t);
    cpu.push(cpuMs(c));
  }
  return { wall, cpu };
}

const result = mode === 'ours' ? await ours() : naive();
process.stdout.write(JSON.stringify({ ...result, maxRssMb: process.resourceUsage().maxRSS / 1024 }) + '\n');
