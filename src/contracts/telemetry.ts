// What the OTLP/HTTP receiver stores under the state dir (docs/fleet.md): telemetry/<session>.ndjson,
// one line per agent event it received for that session (each CLI's names mapped to one vocabulary
// by contracts/telemetry-dialects.ts), and telemetry/hosts.json, when each
// sending host was last heard from (the partition rule: a stall is never concluded from missing
// telemetry while its host is silent). Loose objects: fields may be added. Pure.
import * as z from 'zod';
import { TelemetryEventSchema } from './vocabulary.js';

/** Longest host name the receiver keeps (DNS names are at most 253); a longer one is cut. */
export const TELEMETRY_HOST_MAX = 255;

/** One received event, as the receiver appends it (observe/parse/parse-telemetry.ts folds them). */
export const TelemetryLineSchema = z
  .looseObject({
    ts: z
      .string()
      .describe(
        "When the agent says the event happened (event.timestamp, else the record time), ISO 8601 UTC, on the sender's clock: evidence only, never used to measure a silence.",
      ),
    rx: z.number().describe('When the receiver got it, epoch ms on the watchdog clock: the time the judge uses.'),
    event: TelemetryEventSchema,
    host: z.string().describe('The sending host: resource host.name, else host.id, else the peer address.'),
    seq: z.number().optional().describe('event.sequence'),
    prompt_id: z.string().optional(),
    tool_name: z.string().optional(),
    tool_use_id: z.string().optional(),
    decision: z.string().optional().describe('tool_decision: accept or reject'),
    success: z.boolean().optional().describe('tool_result'),
    error: z.string().optional().describe('tool_result / api_error: the error text, shortened'),
    input: z.string().optional().describe('tool_decision: a summary of tool_parameters (OTEL_LOG_TOOL_DETAILS=1), shortened'),
    command: z.string().optional().describe('tool_decision of Bash: the command, shortened'),
    timeout_ms: z.number().optional().describe('tool_decision of Bash: its timeout'),
    background: z.boolean().optional().describe('tool_decision of Bash: run_in_background'),
    attempt: z.number().optional().describe('api_error: the attempt number'),
    status_code: z.string().optional().describe('api_error: the HTTP status'),
    name: z.string().optional().describe("The sender's own event name, when the CLI's dialect keeps it (codex.sse_event)"),
    kind: z.string().optional().describe('A finer kind of the event (Codex: the SSE event type, response.output_text.delta …)'),
  })
  .meta({
    title: 'TelemetryLine',
    description:
      "One line of telemetry/<session_id>.ndjson: an agent's OpenTelemetry event (Claude Code's, Codex's) the OTLP receiver got, in the watchdog's vocabulary.",
  });
export type TelemetryLine = z.infer<typeof TelemetryLineSchema>;

/** telemetry/hosts.json: every host the receiver heard from, and when (epoch ms on the watchdog clock). */
export const TelemetryHostsSchema = z
  .looseObject({
    version: z.literal(1),
    updated_ms: z.number(),
    hosts: z.record(z.string(), z.looseObject({ first_ms: z.number(), last_ms: z.number(), requests: z.number(), records: z.number() })),
  })
  .meta({ title: 'TelemetryHosts', description: 'telemetry/hosts.json: when the OTLP receiver last heard from each host (logs or metrics).' });
export type TelemetryHosts = z.infer<typeof TelemetryHostsSchema>;
