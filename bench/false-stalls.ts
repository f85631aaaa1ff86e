// Issue 19's measurement on the real transcripts this repo holds (its 26 sessions are not here; these
// stand in for them): every session under test/fixtures/real/, test/fixtures/real-2.1.197/ and
// ../shared/fixtures/claude-code/ (skipped, with a line saying so, when ../shared is absent),
// replayed record by record at 120 s and 300 s and scored (src/agents/claude-code/parse/replay-score.ts).
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readReplayInput } from '../src/commands/replay.js';
import { DEFAULT_POLICY } from '../src/core/policy.js';
import { renderScore } from '../src/core/render-score.js';
import { scoreReplays, type WindowScore } from '../src/agents/claude-code/parse/replay-score.js';
import type { ReplayInput } from '../src/agents/claude-code/parse/replay-transcript.js';

/** The repo root, from src/ (tsx) or dist/bench/ (npm run bench). */
const ROOT = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
})();

/** The stand-in sets: our own real excerpts (always here), then the shared ones (next to the repo). */
export const STAND_IN = {
  own: [path.join(ROOT, 'test/fixtures/real'), path.join(ROOT, 'test/fixtures/real-2.1.197')],
  shared: process.env.DW_SHARED_FIXTURES ?? path.resolve(ROOT, '../shared/fixtures/claude-code'),
};

/** Every session transcript under `dir`: a .jsonl not under a subagents/ dir and not a flat agent-*.jsonl child. */
export function sessionFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'subagents') out.push(...sessionFiles(p));
    } else if (name.endsWith('.jsonl') && !name.startsWith('agent-')) out.push(p);
  }
  return out;
}

/** The session id and, for a subagent's transcript, its agent id, from a file's first record. */
function headOf(text: string): { sessionId?: string; agentId?: string } {
  try {
    const rec = JSON.parse(text.slice(0, text.indexOf('\n') >>> 0)) as { sessionId?: unknown; isSidechain?: unknown; agentId?: unknown };
    return {
      sessionId: typeof rec.sessionId === 'string' ? rec.sessionId : undefined,
      agentId: rec.isSidechain === true && typeof rec.agentId === 'string' ? rec.agentId : undefined,
    };
  } catch {
    return {};
  }
}

/**
 * The sessions under `dirs`, each with its subagents' transcripts. A subagent's transcript kept as a
 * file of its own (an excerpt not in Claude Code's layout) is read with the session it names, as
 * Claude Code's layout would have it (`agent-<id>.jsonl`): alone, its final answer reads as a pause.
 */
export async function readStandIn(dirs: readonly string[]): Promise<ReplayInput[]> {
  const inputs: ReplayInput[] = [];
  const rel = (f: string) => path.relative(ROOT, f);
  for (const file of dirs.flatMap(sessionFiles)) {
    const input = await readReplayInput(file);
    inputs.push({ transcript: { ...input.transcript, file: rel(file) }, children: input.children?.map((c) => ({ ...c, file: rel(c.file) })) });
  }
  return inputs.filter((input) => {
    const { sessionId, agentId } = headOf(input.transcript.text);
    const parent =
      agentId === undefined
        ? undefined
        : inputs.find((p) => p !== input && headOf(p.transcript.text).agentId === undefined && headOf(p.transcript.text).sessionId === sessionId);
    if (!parent) return true;
    parent.children = [
      ...(parent.children ?? []),
      { file: path.join(path.dirname(input.transcript.file), `agent-${agentId}.jsonl`), text: input.transcript.text },
    ];
    return false;
  });
}

export const WINDOWS_S = [120, 300];

const scoreAt = (inputs: readonly ReplayInput[]) => WINDOWS_S.map((s) => scoreReplays(inputs, { ...DEFAULT_POLICY, baseTimeoutMs: s * 1000 }));

export async function benchFalseStalls(): Promise<{ name: string; lines: string[]; own: WindowScore[]; shared?: WindowScore[] }> {
  const own = scoreAt(await readStandIn(STAND_IN.own));
  const lines = ['our own real excerpts (test/fixtures/real*, whole runs of records):', ...own.flatMap(renderScore)];
  if (!existsSync(STAND_IN.shared)) {
    lines.push(`(${STAND_IN.shared} is absent: its excerpts are skipped)`);
    return { name: NAME, lines, own };
  }
  const shared = scoreAt(await readStandIn([STAND_IN.shared]));
  lines.push(
    `the shared excerpts (${path.relative(ROOT, STAND_IN.shared)}: lines picked out of longer sessions, so a silence there may be lines left out):`,
    ...shared.flatMap(renderScore),
  );
  return { name: NAME, lines, own, shared };
}

const NAME = "false stalls on the real transcripts here (issue 19's measurement, stand-in set; crash cuts: seed 19, 25 per file)";

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const r = await benchFalseStalls();
  process.stdout.write(`${r.name}\n${r.lines.map((l) => `  ${l}`).join('\n')}\n`);
}
