// `dispatch-watchdog replay --json` output: NDJSON, one object per verdict change, then one
// summary object per transcript and window. Pure.
import * as z from 'zod';
import { IsoTimestamp } from './time.js';
import { ExemptionSchema, StallReasonSchema, VerdictKindSchema } from './vocabulary.js';

const Common = {
  /** The transcript replayed, as given on the command line. */
  file: z.string(),
  /** The base window this pass used (`--timeout`). */
  timeout_seconds: z.number(),
};

export const ReplayChangeSchema = z
  .looseObject({
    type: z.literal('change'),
    ...Common,
    /** When the verdict changed: a record's timestamp, or the moment a window ran out. */
    at: IsoTimestamp,
    verdict: VerdictKindSchema,
    reason: z.string(),
    /** The effective window at that moment. */
    window_seconds: z.number(),
    exemptions: z.array(ExemptionSchema),
    /** The subagent transcript whose record caused the change (null: the agent's own). */
    child_file: z.string().nullable(),
    idle_seconds: z.number().nullable(),
    stall_reason: StallReasonSchema.nullable(),
    /** 1-based line of the record that caused the change (null: a window ran out between records). */
    line: z.number().int().nullable(),
    /** For a stall: what happened next (`false_alarm`: the agent went on by itself). */
    outcome: z.enum(['false_alarm', 'human_resumed', 'interrupted', 'end_of_transcript']).nullable(),
  })
  .meta({ title: 'change', description: 'the verdict of a replayed transcript changed' });

export const ReplaySummarySchema = z
  .looseObject({
    type: z.literal('summary'),
    ...Common,
    first_record: IsoTimestamp.nullable(),
    last_record: IsoTimestamp.nullable(),
    records: z.number().int(),
    /** Stalls the watchdog would have flagged. */
    stalls: z.number().int(),
    /** ... of which the agent went on by itself afterwards. */
    false_alarms: z.number().int(),
    /** ... after which a human prompt or an interruption came next (the stall was real or needed a human). */
    human_resumed: z.number().int(),
    /** ... with nothing after it in the file (a crash, or the recording stopped). */
    at_end: z.number().int(),
    /** Subagent transcripts read with it (`<session>/subagents/agent-*.jsonl`). */
    children: z.array(z.string()),
  })
  .meta({ title: 'summary', description: 'the totals of one transcript replayed at one window' });

export const ReplayLineSchema = z.discriminatedUnion('type', [ReplayChangeSchema, ReplaySummarySchema]);
export type ReplayLine = z.infer<typeof ReplayLineSchema>;
