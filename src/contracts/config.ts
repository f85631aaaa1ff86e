// watchdog.config.yaml (DESIGN §10): strict, so a misspelt key is an error naming the key. Pure.
import * as z from 'zod';
import { parseYaml, type ParseResult } from './parse-yaml.js';

export const ACTIONS = ['report', 'cancel', 'redispatch'] as const;
export type Strategy = (typeof ACTIONS)[number];

export const ADAPTERS = ['mailbox', 'claude-team', 'process', 'command'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

const Seconds = z.number().positive().max(7 * 86_400);
const Argv = z.array(z.string().min(1)).min(1).describe('argv template, run without a shell; placeholders {prompt_file} {ticket} {attempt} {checkpoint} {task_id} {epic} {pid} {agent_id}');

export const ConfigSchema = z
  .strictObject({
    timeout_seconds: Seconds.optional().describe('Base stall window in seconds. @defaultValue 120'),
    check_interval_seconds: Seconds.optional().describe('Longest sleep between checks in seconds. @defaultValue 30'),
    action: z.enum(ACTIONS).optional().describe('Strategy on a stalled task. @defaultValue redispatch'),
    max_redispatches: z.number().int().min(0).max(20).optional().describe('Redispatches per ticket before escalation. @defaultValue 2'),
    exemptions: z
      .strictObject({
        bash_long_timeout_ms: z.number().int().min(0).optional().describe('A Bash timeout above this (ms) extends the window. @defaultValue 120000'),
        bash_grace_seconds: z.number().min(0).optional().describe('Added to a long Bash timeout. @defaultValue 60'),
        rate_limit_factor: z.number().min(1).max(100).optional().describe('Window multiplier during rate-limit backoff. @defaultValue 2'),
        rate_limit_patterns: z.array(z.string().min(1)).optional().describe('Case-insensitive substrings of the last output. @defaultValue ["rate limit", "retry"]'),
        ci_polling_seconds: Seconds.optional().describe('Minimum window while polling CI. @defaultValue 600'),
        ci_polling_patterns: z.array(z.string().min(1)).optional().describe('Substrings of a Bash command that polls CI. @defaultValue ["gh run watch", "gh pr checks --watch"]'),
        open_tool_grace_seconds: z.number().min(0).optional().describe('Grace after an open tool call\'s own timeout. @defaultValue 60'),
        future_skew_seconds: z.number().min(0).optional().describe('A timestamp further in the future is inconsistent. @defaultValue 300'),
      })
      .optional(),
    looping: z
      .strictObject({
        repeat_count: z.number().int().min(2).optional().describe('Same call with same input this many times in a row. @defaultValue 4'),
        error_count: z.number().int().min(2).optional().describe('Same error this many times. @defaultValue 3'),
        act: z.boolean().optional().describe('Treat looping like a stall for actions. @defaultValue false'),
      })
      .optional(),
    circuit_breaker: z
      .strictObject({
        min_stalled: z.number().int().min(1).optional().describe('@defaultValue 3'),
        fraction: z.number().gt(0).max(1).optional().describe('@defaultValue 0.5'),
      })
      .optional(),
    agents: z
      .strictObject({
        adapter: z.enum(ADAPTERS).optional().describe('@defaultValue mailbox'),
        kill_grace_ms: z.number().int().min(0).max(600_000).optional().describe('SIGTERM→SIGKILL grace for the process adapter. @defaultValue 5000'),
        redispatch_argv: Argv.optional(),
        cancel_argv: Argv.optional(),
        teams_dir: z.string().min(1).optional().describe('Claude Code teams dir. @defaultValue ~/.claude/teams'),
        command_timeout_ms: z.number().int().min(100).max(3_600_000).optional().describe('command adapter: a cancel or redispatch command running longer is killed and its outcome is unknown. @defaultValue 60000'),
      })
      .optional(),
    linear: z
      .strictObject({
        blocked_state: z.string().min(1).optional().describe('Workflow state name, matched case-insensitively. @defaultValue Blocked'),
        api_url: z.string().url().optional().describe('GraphQL endpoint. @defaultValue https://api.linear.app/graphql'),
      })
      .optional(),
    claude: z
      .strictObject({
        config_dir: z.string().min(1).optional().describe('Where Claude Code keeps projects/. @defaultValue $CLAUDE_CONFIG_DIR or ~/.claude'),
      })
      .optional(),
  })
  .meta({ title: 'WatchdogConfig', description: 'watchdog.config.yaml (DESIGN §10). Flags override the file.' });
export type WatchdogConfig = z.output<typeof ConfigSchema>;

/** Parse the text of a config file. */
export function parseConfig(text: string, fileName: string): ParseResult<WatchdogConfig> {
  return parseYaml(text, ConfigSchema, {
    file: fileName,
    typeHint: 'Fix that key in the config file (docs/state-files.md lists every key).',
  });
}
