// The core knows no agent CLI (issue 32 item 1): a tool call has a kind, a reason takes its CLI's
// words from the harness, a request its command from the harness. Nothing under src/core/ may name
// a vendor's CLI or tool in code (comments may explain where a rule came from).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');
const under = (dir: string) =>
  readdirSync(path.join(src, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => `${dir}/${f.split(path.sep).join('/')}`);
const CORE = under('core');
/**
 * Beyond the core, the modules that act on any row: recovery and friction notes (issue 32: a CLI's
 * knowledge lives in its wing).
 */
const NEUTRAL = [...under('act/recovery'), ...under('act/friction')];
/**
 * The evidence layer (issue 32: telemetry its own observer, agent-neutral): observe/ parses and
 * reads for every CLI, imports nothing from src/agents/ and names none; a CLI's specifics come in
 * through its harness (its dialect, its classifier).
 */
const OBSERVE = under('observe');
/** Imports (static, re-exports, dynamic) that reach into an agent CLI's wing or the harness registry. */
const agentImports = (text: string) => [...text.matchAll(/(?:from\s+|import\()\s*'([^']*\/agents\/[^']*)'/g)].map((m) => m[1]);

/** A vendor's CLI (by name or its wing's folder) or one of its tools, spelled in code. */
const VENDOR = [
  /\bclaude\b|claude[-_]|\bcodex\b|agents\/(claude-code|codex)\//i,
  // Claude Code's tool names as words (Bash, BashOutput, Agent/Task as tools, TaskOutput, KillShell, …).
  /\b(Bash|BashOutput|KillShell|KillBash|TaskOutput|TaskList|TaskGet|TaskStop|AskUserQuestion|ExitPlanMode|SendMessage|WebFetch|WebSearch|MultiEdit|NotebookEdit)\b/,
  /['"`](Agent|Task|Read|Write|Edit|Glob|Grep|LS)['"`]/,
  // Codex's tool names.
  /\b(exec_command|apply_patch|write_stdin|update_plan)\b/,
];

/** The code of a module: comments removed (block, then line; a `//` inside a string only loses text, never adds a hit). */
export function codeOf(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

export function vendorHits(text: string): string[] {
  return codeOf(text)
    .split('\n')
    .filter((line) => VENDOR.some((re) => re.test(line)))
    .map((l) => l.trim());
}

describe('the core names no agent CLI', () => {
  it.each(CORE)('%s names no vendor CLI or tool', (file) => {
    expect(vendorHits(readFileSync(path.join(src, file), 'utf8'))).toEqual([]);
  });

  it.each(NEUTRAL)('%s names no vendor CLI or tool either', (file) => {
    expect(vendorHits(readFileSync(path.join(src, file), 'utf8'))).toEqual([]);
  });

  it.each(OBSERVE)('%s imports nothing from src/agents/ and names no vendor CLI or tool', (file) => {
    const text = readFileSync(path.join(src, file), 'utf8');
    expect(agentImports(text)).toEqual([]);
    expect(vendorHits(text)).toEqual([]);
  });

  it('the check finds one (a test that cannot fail is a defect)', () => {
    expect(agentImports("import { describeRef } from '../../agents/claude-code/parse/parse-transcript.js';")).toHaveLength(1);
    expect(agentImports("const { x } = await import('../../agents/harnesses.js');")).toHaveLength(1);
    expect(OBSERVE.length).toBeGreaterThan(20);
    expect(vendorHits("const isBash = (obs) => obs.lastTool?.name === 'Bash';")).toHaveLength(1);
    expect(vendorHits('return `claude --resume ${id} -p`;')).toHaveLength(1);
    expect(vendorHits("if (name === 'Agent' || name === 'Task') return true;")).toHaveLength(1);
    expect(vendorHits("import { x } from '../agents/claude-code/parse/replay-transcript.js';")).toHaveLength(1);
    expect(vendorHits("// Claude Code's Bash default, where the rule came from\nconst kind = 'shell';")).toEqual([]);
    expect(CORE.length).toBeGreaterThan(20);
  });
});
