// Every default, once, shaped like watchdog.config.yaml (docs/state-files.md). The options, the policy,
// the adapters, the Linear client, the config descriptions and schemas/ all read it. Pure.
import type { AdapterName, NotifyFormat, NotifyTrigger, Strategy, TransportCause } from './vocabulary.js';

export const DEFAULTS = {
  timeout_seconds: 120,
  check_interval_seconds: 30,
  /**
   * An agent judged healthy has its files read again at most this often (issue 37: a busy wave
   * changes most files between two fast checks). Every verdict but healthy is drawn from a fresh read.
   */
  healthy_read_seconds: 30,
  action: 'redispatch' as Strategy,
  max_redispatches: 2,
  exemptions: {
    bash_long_timeout_ms: 120_000,
    bash_grace_seconds: 60,
    rate_limit_factor: 2,
    rate_limit_patterns: ['rate limit', 'retry'] as readonly string[],
    ci_polling_seconds: 600,
    ci_polling_patterns: [
      'gh run watch',
      'gh pr checks --watch',
      'gh pr checks --wait',
      'glab ci status --live',
      'glab ci status -l',
      'glab pipeline status --live',
    ] as readonly string[],
    open_tool_grace_seconds: 60,
    future_skew_seconds: 300,
  },
  looping: { repeat_count: 4, error_count: 3, act: false },
  circuit_breaker: { min_stalled: 3, fraction: 0.5, max_hold_seconds: 900 },
  agents: { adapter: 'mailbox' as AdapterName, kill_grace_ms: 5000, command_timeout_ms: 60_000 },
  /**
   * Resume instead of restart (DESIGN §8): the transport causes recovered by resuming the agent's
   * own session (at most once in a row per ticket; a second stall gets a fresh agent).
   */
  recovery: {
    resume_on: ['frozen_stream', 'overloaded', 'connection'] as readonly TransportCause[],
    /** Nudge an agent between turns whose row is still in progress, once, before asking the owner. */
    nudge: true,
    /** How long a nudge has to show progress, and how long a row and its agent may disagree before anything is done, in base windows. */
    nudge_grace_windows: 1,
    reconcile_grace_windows: 1,
  },
  /** When `next` says a person is needed (reason attention). */
  attention: { human_wait_seconds: 1800, unobservable_windows: 5 },
  /** requests.deadline_seconds defaults to this many base windows (timeout_seconds). */
  requests: { deadline_windows: 2 },
  /** The OTLP/HTTP logs receiver (docs/fleet.md). */
  otlp: { token_env: 'DISPATCH_WATCHDOG_OTLP_TOKEN', max_request_bytes: 4 * 1024 * 1024, max_requests_per_second: 100 },
  linear: { blocked_state: 'Blocked', api_url: 'https://api.linear.app/graphql' },
  /** The webhook (off without a URL): what it is sent about, its body, and how each POST is tried. */
  notifications: {
    format: 'slack' as NotifyFormat,
    on: ['escalation', 'unanswered_request', 'orphan', 'mass_stall', 'human_wait'] as readonly NotifyTrigger[],
    timeout_ms: 10_000,
    retries: 4,
    idempotent_receiver: false,
  },
  /** Facts of the outside world, not settable in the config file. */
  fixed: {
    /** Claude Code's own Bash timeout, for an open Bash call that names none. */
    claude_bash_timeout_ms: 120_000,
    /**
     * After an open shell call's own limit (120 s or less): the time its CLI may take to end the
     * call and write its result (Claude Code 2.1.197 and 2.1.332, measured: 0.45 to 0.9 s after a 3 s
     * timeout on a loaded machine). A window of exactly the limit would race that write.
     */
    shell_limit_settle_ms: 5_000,
    /** How long a watch or `next` waits for a missing state file to appear before it says the epic does not exist. */
    missing_epic_settle_ms: 5_000,
  },
} as const;

/** `text @defaultValue <value>`: the description a config key carries into schemas/ and docs. */
export function withDefault(text: string, value: string | number | boolean | readonly string[]): string {
  const shown = Array.isArray(value) ? `[${value.map((v) => JSON.stringify(v)).join(', ')}]` : String(value);
  return `${text ? `${text} ` : ''}@defaultValue ${shown}`;
}
