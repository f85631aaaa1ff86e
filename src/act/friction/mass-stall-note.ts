// The friction note of a mass-stall episode held too long (DESIGN §8 guards): written once per
// episode, before the mass_stall_escalated line that names it.
import path from 'node:path';
/** The fields of a mass_stall_escalated event the note needs. */
export interface MassStallEscalation {
  task_ids: string[];
  episode_started_at: string;
  held_seconds: number;
  friction_path: string;
}
import { msToIso } from '../../contracts/time.js';
import { createFileExclusive } from '../../files/atomic-write.js';
import type { StatePaths } from '../../files/paths.js';

/** Write the note once; an existing one is kept. */
export async function writeMassStallNote(paths: StatePaths, epicId: string, e: MassStallEscalation, nowMs: number): Promise<void> {
  const text = [
    `# Mass stall held too long: ${epicId}`,
    '',
    '## Summary',
    `${e.task_ids.length} tasks of epic ${epicId} have been stalled at once since ${e.episode_started_at}: the circuit breaker held every cancel and redispatch for ${e.held_seconds} s, longer than circuit_breaker.max_hold_seconds.`,
    `From ${msToIso(nowMs)} the watchdog acts on these stalls again, one by one.`,
    '',
    '## Tasks',
    ...e.task_ids.map((id) => `- ${id}`),
    '',
    '## Root Cause Hypothesis',
    'Many agents going quiet together usually means the host or a shared dependency is starved (CPU, memory, API rate limit, network, a lock), not that each agent is stuck.',
    '',
    '## Recommended Action',
    'Check the host and the API quota before the redispatches add load; the dispatch log (mass_stall, mass_stall_escalated) has the timeline.',
    '',
  ].join('\n');
  await createFileExclusive(path.join(paths.root, e.friction_path), text);
}
