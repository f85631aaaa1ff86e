// The SubagentStop payloads of real Claude Code 2.1.332 sessions (test/fixtures/real-2.1.332/):
// it lists the stopping background subagent itself among the running tasks, which is not work it
// leaves running (issue 38). Parked on its own auto-backgrounded command, the command still counts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildHookLine } from '../../src/agents/claude-code/parse/hook-line.js';

const DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/real-2.1.332');
const payloads = (dir: string) =>
  readFileSync(path.join(DIR, dir, 'hooks.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);

describe("2.1.332's SubagentStop background_tasks", () => {
  const stop = payloads('parked-on-background-command').find((p) => p.hook_event_name === 'SubagentStop')!;

  it('a parked subagent leaves its auto-backgrounded command running: counted, itself not', () => {
    expect(stop.background_tasks.map((t: any) => t.id)).toEqual([stop.agent_id, expect.any(String)]);
    expect(buildHookLine(stop, 0)?.line.background_running).toBe(1);
  });

  it('a subagent that stops with only itself listed leaves nothing running: its stop is its finish', () => {
    const done = { ...stop, background_tasks: stop.background_tasks.filter((t: any) => t.id === stop.agent_id) };
    expect(buildHookLine(done, 0)?.line.background_running).toBe(0);
    // A lead's Stop listing a running subagent still counts it.
    const lead = payloads('parked-on-background-command').find((p) => p.hook_event_name === 'Stop')!;
    expect(buildHookLine(lead, 0)?.line.background_running).toBe(1);
  });
});
