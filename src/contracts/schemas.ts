// Every file format as JSON Schema, emitted into schemas/ by `npm run schemas`. Pure.
import * as z from 'zod';
import { CheckpointSchema } from './checkpoint.js';
import { ConfigSchema } from './config.js';
import { DispatchEventSchema } from './events.js';
import { LockSchema } from './lock.js';
import { ObserveStoreLineSchema, PrefixIdsFileSchema } from './observe-store.js';
import { CommandRecordSchema, LaunchRecordSchema, NotifyRecordSchema } from './markers.js';
import { HistorySummarySchema } from './history-summary.js';
import { ReplayLineSchema } from './replay.js';
import { TelemetryHostsSchema, TelemetryLineSchema } from './telemetry.js';
import { StateFileSchema } from './state-file.js';
import { WatchdogJsonReadSchema } from './watchdog-json.js';
import { EscalationNoticeSchema, RequestSchema } from './request.js';
import { NextDocSchema } from './next.js';
import { FrictionReviewSchema } from './friction-review.js';

/** File name → zod schema, and whether people write it by hand (then defaults are optional). */
export const SCHEMA_FILES: { file: string; schema: z.ZodType; io: 'input' | 'output' }[] = [
  { file: 'state-file.schema.json', schema: StateFileSchema, io: 'input' },
  { file: 'watchdog-config.schema.json', schema: ConfigSchema, io: 'input' },
  { file: 'watchdog-json.schema.json', schema: WatchdogJsonReadSchema, io: 'output' },
  { file: 'dispatch-event.schema.json', schema: DispatchEventSchema, io: 'output' },
  { file: 'recovery-checkpoint.schema.json', schema: CheckpointSchema, io: 'output' },
  { file: 'request.schema.json', schema: RequestSchema, io: 'output' },
  { file: 'friction-review.schema.json', schema: FrictionReviewSchema, io: 'output' },
  { file: 'watchdog-lock.schema.json', schema: LockSchema, io: 'output' },
  { file: 'launch-record.schema.json', schema: LaunchRecordSchema, io: 'output' },
  { file: 'command-record.schema.json', schema: CommandRecordSchema, io: 'output' },
  { file: 'notify-record.schema.json', schema: NotifyRecordSchema, io: 'output' },
  { file: 'observe-store-line.schema.json', schema: ObserveStoreLineSchema, io: 'output' },
  { file: 'observe-prefix-ids.schema.json', schema: PrefixIdsFileSchema, io: 'output' },
  { file: 'history-summary.schema.json', schema: HistorySummarySchema, io: 'output' },
  { file: 'replay-line.schema.json', schema: ReplayLineSchema, io: 'output' },
  { file: 'telemetry-line.schema.json', schema: TelemetryLineSchema, io: 'output' },
  { file: 'telemetry-hosts.schema.json', schema: TelemetryHostsSchema, io: 'output' },
  { file: 'escalation-notice.schema.json', schema: EscalationNoticeSchema, io: 'output' },
  { file: 'next.schema.json', schema: NextDocSchema, io: 'output' },
];

/** The text of every schema file, keyed by file name. */
export function renderSchemas(): Map<string, string> {
  const out = new Map<string, string>();
  for (const { file, schema, io } of SCHEMA_FILES) {
    out.set(file, JSON.stringify(z.toJSONSchema(schema, { io, unrepresentable: 'any' }), null, 2) + '\n');
  }
  return out;
}
