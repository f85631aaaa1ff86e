// What each agent CLI's OpenTelemetry logs say, in the one vocabulary the watchdog stores and
// judges (TELEMETRY_EVENTS): which log records are its events, which attribute names the session
// (the file its events go to: telemetry/<session>.ndjson), and what each event means. The OTLP
// decoder (observe/parse/otlp-decode.ts) and the receiver read this table; each harness names its
// own (`AgentHarness.telemetry`), and the telemetry observer folds the stored lines knowing no CLI.
// One entry per AGENT_CLI, so a new CLI does not compile until its dialect is written (an empty
// `events` when it exports none). Pure.
import type { AgentCli, TelemetryEventName } from './vocabulary.js';

/** An attribute of the record being read, as a plain scalar (undefined: absent). */
export type AttributeOf = (key: string) => string | number | boolean | undefined;

/** What a log record of this CLI is: the stored event, or undefined (not kept; counted as traffic). */
export type TelemetryMeaning = TelemetryEventName | ((attr: AttributeOf) => TelemetryEventName | undefined);

export interface TelemetryDialect {
  /** Its events' names begin with this (`claude_code.`, `codex.`). */
  prefix: string;
  /**
   * Where the prefixed name is: `body` (the record's body; `event.name` then holds the bare name),
   * or `event.name` (the attribute holds the whole name).
   */
  prefixedIn: 'body' | 'event.name';
  /** The attribute naming the session (its file): `session.id`, `conversation.id`. */
  sessionKey: string;
  /** Bare event name → what it is. A name not listed is not kept. */
  events: Readonly<Record<string, TelemetryMeaning>>;
  /** Attribute names of the fields stored (a field whose key is absent is not read). */
  keys: {
    toolName?: string;
    toolUseId?: string;
    decision?: string;
    toolParameters?: string;
    success?: string;
    error?: string;
    status?: string;
    attempt?: string;
    sequence?: string;
    promptId?: string;
    /** A finer kind of the event, kept as `kind` (Codex's SSE event type). */
    kind?: string;
  };
  /** The CLI's shell tool and how its parameters (a JSON `toolParameters` attribute) name the command, timeout and background flag. */
  shell?: { tool: string; command: readonly string[]; timeout?: string; background?: string };
  /** Whether the stored line keeps the sender's own event name (`name`), when it is not the stored event's. */
  keepsName?: boolean;
}

const ok = (status: string | number | boolean | undefined) => status === undefined || /^2\d\d$/.test(String(status));

/**
 * Claude Code (`CLAUDE_CODE_ENABLE_TELEMETRY=1`, ../shared/reference/claude-code-2.1.197.md
 * "OpenTelemetry export"): `claude_code.<name>` bodies, `event.name` = the bare name, `session.id`.
 */
const CLAUDE_CODE: TelemetryDialect = {
  prefix: 'claude_code.',
  prefixedIn: 'body',
  sessionKey: 'session.id',
  events: {
    user_prompt: 'user_prompt',
    tool_decision: 'tool_decision',
    tool_result: 'tool_result',
    api_request: 'api_request',
    api_error: 'api_error',
    assistant_response: 'assistant_response',
  },
  keys: {
    toolName: 'tool_name',
    toolUseId: 'tool_use_id',
    decision: 'decision',
    toolParameters: 'tool_parameters',
    success: 'success',
    error: 'error',
    status: 'status_code',
    attempt: 'attempt',
    sequence: 'event.sequence',
    promptId: 'prompt.id',
  },
  shell: { tool: 'Bash', command: ['full_command', 'command'], timeout: 'timeout', background: 'run_in_background' },
};

/**
 * Codex 0.171 (`[otel]` in config.toml, ../shared/reference/codex-0.171.0.md §7): `event.name` =
 * `codex.<name>`, `conversation.id` = the thread id, exported about 1 s after the fact. An HTTP
 * attempt that went through and each SSE event are the model at work (`model_stream`: the only
 * live sign of a streaming model); a refused or failed attempt and a stream failure are an API
 * retry (`api_error`: Codex retries it). Its tool events count as activity only: the rollout has
 * the same calls first, with their arguments, and the telemetry's later copy must not replace them.
 */
const CODEX: TelemetryDialect = {
  prefix: 'codex.',
  prefixedIn: 'event.name',
  sessionKey: 'conversation.id',
  events: {
    user_prompt: 'user_prompt',
    api_request: (attr) => (ok(attr('http.response.status_code')) && attr('error.message') === undefined ? 'model_stream' : 'api_error'),
    sse_event: (attr) => (attr('error.message') === undefined ? 'model_stream' : 'api_error'),
    turn_ttft: 'model_stream',
    tool_decision: 'activity',
    tool_result: 'activity',
    conversation_starts: 'activity',
    startup_phase: 'activity',
  },
  keys: {
    toolName: 'tool_name',
    toolUseId: 'call_id',
    error: 'error.message',
    status: 'http.response.status_code',
    attempt: 'attempt',
    kind: 'event.kind',
  },
  keepsName: true,
};

/** Every agent CLI's dialect (one entry each: the compiler asks for a new CLI's). */
export const TELEMETRY_DIALECTS: Readonly<Record<AgentCli, TelemetryDialect>> = { 'claude-code': CLAUDE_CODE, codex: CODEX };

/** The dialects the receiver decodes with, in a stable order. */
export const ALL_TELEMETRY_DIALECTS: readonly TelemetryDialect[] = Object.values(TELEMETRY_DIALECTS);
