// The envelope every dispatch-log line carries, the fields of a line about one task, and `ev`,
// which makes one event's schema. Pure. Split out of contracts/events.ts.
import * as z from 'zod';
import { SafeId } from './ids.js';
import { IsoTimestamp } from './time.js';

export const Envelope = {
  timestamp_utc: IsoTimestamp,
  epic_id: z.string(),
  run_id: z.string(),
};
/** Fields of a line about one task (`agent_id` is the seed's name for the task/agent id). */
export const TaskFields = {
  // Safe ids: a line edited by hand or by another tool can never steer a path out of the state dir.
  ticket_id: SafeId,
  task_id: SafeId,
  agent_id: SafeId,
};

export const ev = <E extends string, S extends z.core.$ZodLooseShape>(event: E, shape: S, description: string) =>
  z.looseObject({ event: z.literal(event), ...Envelope, ...shape }).meta({ title: event, description });
