// Builders for core data: a task row and an observation with sensible defaults.
import type { Task } from '../../src/contracts/state-file.js';
import { mergeObservations, type Observation } from '../../src/observe/parse/observation.js';

export const T0 = Date.parse('2026-04-02T10:00:00Z');

export function makeTask(over: Partial<Task> = {}): Task {
  return { taskId: 't1', ticketId: 'PROJ-1001', status: 'in_progress', statusClass: 'in_flight', dispatchedAtMs: T0, ...over };
}

export function makeObs(over: Partial<Observation> = {}): Observation {
  return { ...mergeObservations([]), ...over };
}
