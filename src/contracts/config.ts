// watchdog.config.yaml (docs/state-files.md): strict, so a misspelt key is an error naming the key. Pure.
import * as z from 'zod';
import { DEFAULTS, withDefault as dv } from './defaults.js';
import { parseYaml, type ParseResult } from './parse-yaml.js';
import { ADAPTERS, NOTIFY_FORMATS, NOTIFY_TRIGGERS, STRATEGIES, TRANSPORT_CAUSES } from './vocabulary.js';

const D = DEFAULTS;

/** Longest window or interval in seconds (7 days): far past any agent, and safe for a timer (2^31 ms ≈ 24.8 days). */
export const MAX_SECONDS = 7 * 86_400;
const Seconds = z.number().positive().max(MAX_SECONDS);
const Argv = z
  .array(z.string().min(1))
  .min(1)
  .describe('argv template, run without a shell; placeholders {prompt_file} {ticket} {attempt} {checkpoint} {task_id} {epic} {pid} {agent_id}');

export const ConfigSchema = z
  .strictObject({
    timeout_seconds: Seconds.optional().describe(dv('Base stall window in seconds.', D.timeout_seconds)),
    check_interval_seconds: Seconds.optional().describe(dv('Longest sleep between checks in seconds.', D.check_interval_seconds)),
    healthy_read_seconds: z
      .number()
      .min(0)
      .max(MAX_SECONDS)
      .optional()
      .describe(
        dv(
          'A Claude Code transcript whose agent is judged healthy is read again at most this often, in seconds (each read waits three quarters to all of it, and at most half of timeout_seconds past the progress it saw; 0: at every check). Hook lines are read at every check, and any verdict but healthy is drawn from a read of every file, so no stall is seen later; what newer transcript records say (a finish, a question, a loop) is seen within this long.',
          D.healthy_read_seconds,
        ),
      ),
    action: z.enum(STRATEGIES).optional().describe(dv('Strategy on a stalled task.', D.action)),
    max_redispatches: z.number().int().min(0).max(20).optional().describe(dv('Redispatches per ticket before escalation.', D.max_redispatches)),
    exemptions: z
      .strictObject({
        bash_long_timeout_ms: z
          .number()
          .int()
          .min(0)
          .optional()
          .describe(dv('A Bash timeout above this (ms) extends the window.', D.exemptions.bash_long_timeout_ms)),
        bash_grace_seconds: z.number().min(0).optional().describe(dv('Added to a long Bash timeout.', D.exemptions.bash_grace_seconds)),
        rate_limit_factor: z.number().min(1).max(100).optional().describe(dv('Window multiplier during rate-limit backoff.', D.exemptions.rate_limit_factor)),
        rate_limit_patterns: z
          .array(z.string().min(1))
          .optional()
          .describe(dv('Case-insensitive substrings of the last output.', D.exemptions.rate_limit_patterns)),
        ci_polling_seconds: Seconds.optional().describe(dv('Minimum window while polling CI.', D.exemptions.ci_polling_seconds)),
        ci_polling_patterns: z
          .array(z.string().min(1))
          .optional()
          .describe(
            dv(
              'Shapes of a Bash command that polls CI: the words lead a command of the line (after `timeout`, `VAR=x`, `bash -c`), the flags appear anywhere among its arguments (`gh pr checks --watch` matches `gh pr checks 42 --watch`); under `watch -n N` or a while/until loop the words alone match.',
              D.exemptions.ci_polling_patterns,
            ),
          ),
        open_tool_grace_seconds: z
          .number()
          .min(0)
          .optional()
          .describe(dv("Grace after an open tool call's own timeout.", D.exemptions.open_tool_grace_seconds)),
        future_skew_seconds: z.number().min(0).optional().describe(dv('A timestamp further in the future is inconsistent.', D.exemptions.future_skew_seconds)),
      })
      .optional(),
    looping: z
      .strictObject({
        repeat_count: z.number().int().min(2).optional().describe(dv('Same call with same input this many times in a row.', D.looping.repeat_count)),
        error_count: z.number().int().min(2).optional().describe(dv('Same error this many times.', D.looping.error_count)),
        act: z.boolean().optional().describe(dv('Treat looping like a stall for actions.', D.looping.act)),
      })
      .optional(),
    circuit_breaker: z
      .strictObject({
        min_stalled: z.number().int().min(1).optional().describe(dv('', D.circuit_breaker.min_stalled)),
        fraction: z.number().gt(0).max(1).optional().describe(dv('', D.circuit_breaker.fraction)),
        max_hold_seconds: Seconds.optional().describe(
          dv(
            'How long one mass-stall episode may hold actions; after it, the episode is escalated once (friction note) and stalls are acted on again.',
            D.circuit_breaker.max_hold_seconds,
          ),
        ),
      })
      .optional(),
    agents: z
      .strictObject({
        adapter: z.enum(ADAPTERS).optional().describe(dv('', D.agents.adapter)),
        kill_grace_ms: z.number().int().min(0).max(600_000).optional().describe(dv('SIGTERM→SIGKILL grace for the process adapter.', D.agents.kill_grace_ms)),
        redispatch_argv: Argv.optional(),
        cancel_argv: Argv.optional(),
        resume_argv: Argv.optional().describe(
          'argv template that resumes a stalled agent\'s own session (process and command adapters), e.g. ["claude", "--resume", "{session_id}", "-p", "{prompt}"]; {prompt} is the resume prompt. Without it every recovery is a fresh agent.',
        ),
        codex: z
          .strictObject({
            redispatch_argv: Argv.optional().describe(
              'Codex rows (agent: codex): the fresh agent. @defaultValue ["codex", "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "{prompt}"]',
            ),
            resume_argv: Argv.optional().describe(
              'Codex rows: the agent\'s own thread resumed, run in its cwd. @defaultValue ["codex", "exec", "resume", "{session_id}", "--json", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", "{prompt}"]',
            ),
          })
          .optional()
          .describe(
            'process adapter, rows with agent: codex (docs/codex.md): their own launch templates; stop is SIGINT to the native codex, SIGKILL after kill_grace_ms, then the command groups it left.',
          ),
        teams_dir: z.string().min(1).optional().describe('Claude Code teams dir. @defaultValue ~/.claude/teams'),
        command_timeout_ms: z
          .number()
          .int()
          .min(100)
          .max(3_600_000)
          .optional()
          .describe(dv('command adapter: a cancel or redispatch command running longer is killed and its outcome is unknown.', D.agents.command_timeout_ms)),
      })
      .optional(),
    linear: z
      .strictObject({
        blocked_state: z.string().min(1).optional().describe(dv('Workflow state name, matched case-insensitively.', D.linear.blocked_state)),
        api_url: z.string().url().optional().describe(dv('GraphQL endpoint.', D.linear.api_url)),
      })
      .optional(),
    recovery: z
      .strictObject({
        resume_on: z
          .array(z.enum(TRANSPORT_CAUSES))
          .optional()
          .describe(
            dv(
              "Stall causes recovered by resuming the agent's own session instead of a fresh agent (same cap, same protocol); [] turns resume off.",
              D.recovery.resume_on,
            ),
          ),
        nudge: z
          .boolean()
          .optional()
          .describe(
            dv(
              'Nudge an agent whose turn ended while its row is still in progress (a teammate through its inbox, a -p session by a resume), once, before a reconcile request.',
              D.recovery.nudge,
            ),
          ),
        nudge_grace_seconds: Seconds.optional().describe(
          'How long a nudged agent has to show progress before the owner is asked to reconcile. @defaultValue timeout_seconds',
        ),
        reconcile_grace_seconds: Seconds.optional().describe(
          'How long a row and its agent may disagree (row in progress, agent finished) before a nudge or a reconcile request. @defaultValue timeout_seconds',
        ),
      })
      .optional(),
    attention: z
      .strictObject({
        human_wait_seconds: Seconds.optional().describe(
          dv('A permission prompt or question open longer than this makes `next` return (reason attention).', D.attention.human_wait_seconds),
        ),
        unobservable_seconds: Seconds.optional().describe(
          'An agent that cannot be observed (verdict unknown) this long makes `next` return (reason attention). @defaultValue 5 × timeout_seconds',
        ),
      })
      .optional(),
    requests: z
      .strictObject({
        deadline_seconds: Seconds.optional().describe(
          'How long the orchestrator has to answer a cancel or redispatch request before it is logged as request_unanswered (a redispatch then counts as a failed attempt). @defaultValue 2 × timeout_seconds',
        ),
      })
      .optional(),
    notifications: z
      .strictObject({
        // The URL is a secret (a Slack URL embeds a token): checked by act/notify/notify-config.ts, whose messages never show it.
        url: z
          .string()
          .min(1)
          .optional()
          .describe(
            'The webhook to POST to (https://hooks.slack.com/services/… or any URL taking JSON). A secret: never logged or written anywhere. Prefer url_env.',
          ),
        url_env: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
          .optional()
          .describe(
            'The environment variable holding the webhook URL (keeps the secret out of this file). Set url or url_env, not both; neither: no notifications.',
          ),
        format: z
          .enum(NOTIFY_FORMATS)
          .optional()
          .describe(
            dv(
              'slack: {"text": …} for a Slack-compatible incoming webhook; json: a plain JSON document (trigger, key, epic, ticket, text, event).',
              D.notifications.format,
            ),
          ),
        on: z.array(z.enum(NOTIFY_TRIGGERS)).optional().describe(dv('What to notify about.', D.notifications.on)),
        timeout_ms: z
          .number()
          .int()
          .min(100)
          .max(120_000)
          .optional()
          .describe(dv("One POST's deadline; a POST past it is retried.", D.notifications.timeout_ms)),
        retries: z
          .number()
          .int()
          .min(0)
          .max(10)
          .optional()
          .describe(dv('Retries after the first POST, with exponential backoff, only on a network error, a timeout, 5xx or 429.', D.notifications.retries)),
        idempotent_receiver: z
          .boolean()
          .optional()
          .describe(
            dv(
              'The receiver drops a second POST with the same Idempotency-Key header: a send a crash left undecided is sent again instead of being reported as an orphan.',
              D.notifications.idempotent_receiver,
            ),
          ),
      })
      .optional(),
    claude: z
      .strictObject({
        config_dir: z.string().min(1).optional().describe('Where Claude Code keeps projects/. @defaultValue $CLAUDE_CONFIG_DIR or ~/.claude'),
      })
      .optional(),
    otlp: z
      .strictObject({
        listen: z
          .string()
          .min(1)
          .optional()
          .describe('HOST:PORT the OTLP/HTTP logs receiver listens on (the same as --otlp; docs/fleet.md). Unset: no receiver.'),
        token_env: z
          .string()
          .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
          .optional()
          .describe(dv('The environment variable holding the bearer token senders must present (never the token itself).', DEFAULTS.otlp.token_env)),
        max_request_bytes: z
          .number()
          .int()
          .min(1024)
          .optional()
          .describe(dv('Largest request body accepted, after decompression (413 beyond).', DEFAULTS.otlp.max_request_bytes)),
        max_requests_per_second: z
          .number()
          .positive()
          .optional()
          .describe(
            dv(
              'Requests per second accepted from one peer address (429 with Retry-After beyond; bursts of twice as many).',
              DEFAULTS.otlp.max_requests_per_second,
            ),
          ),
      })
      .optional(),
  })
  .meta({ title: 'WatchdogConfig', description: 'watchdog.config.yaml (docs/state-files.md). Flags override the file.' });
export type WatchdogConfig = z.output<typeof ConfigSchema>;

/** Parse the text of a config file. */
export function parseConfig(text: string, fileName: string): ParseResult<WatchdogConfig> {
  return parseYaml(text, ConfigSchema, {
    file: fileName,
    typeHint: 'Fix that key in the config file (docs/state-files.md lists every key).',
  });
}
