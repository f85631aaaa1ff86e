// `dispatch-watchdog friction [--since P] [--epic-id ID] [--json]`: its flags, help and exit codes;
// the review itself is friction-review.ts.
import { toJson } from '../present/sinks.js';
import type { Command } from 'commander';
import { EXIT } from '../contracts/exit-codes.js';
import { assertSafeId, StatePaths } from '../files/paths.js';
import { existingStateDir } from '../options.js';
import { teach } from '../cli-help.js';
import { stateDirOption, type CliContext } from './command.js';
import { parseSince, reviewFriction } from './friction-review.js';
import { renderFriction } from './friction-render.js';

export function registerFriction(program: Command, { env, setCode }: CliContext): void {
  const cmd = program
    .command('friction')
    .description(
      'review a period of the dispatch log: which tickets to look at first and why (with the hypothesis and recommended action of their friction notes), stalls, redispatches and escalations per ticket and per epic, and skipped log lines',
    )
    .option('--since <period>', 'how far back: a duration (2w, 30d, 12h, 90m; 0d = today) or a date (2026-04-01, UTC)', '30d')
    .option('--epic-id <id>', 'only this epic');
  stateDirOption(cmd)
    .option('--json', 'print the review as JSON (schemas/friction-review.schema.json)')
    .action(async (flags: { since: string; epicId?: string; stateDir?: string; json?: boolean }) => {
      const nowMs = env.watchDeps.clock.nowMs();
      const sinceMs = parseSince(flags.since, nowMs);
      const epicId = flags.epicId === undefined ? undefined : assertSafeId(flags.epicId, 'epic id');
      const review = await reviewFriction(new StatePaths(existingStateDir(flags.stateDir, env.env, env.cwd)), { sinceMs, nowMs, epicId });
      env.output.out(flags.json ? toJson(review, 2) + '\n' : renderFriction(review));
      setCode(EXIT.ok);
    });
  teach(cmd, {
    examples: [
      ['dispatch-watchdog friction', 'the last 30 days: stalls, redispatches and escalations per ticket, and the friction notes'],
      ['dispatch-watchdog friction --since 0d', 'today only (UTC)'],
      ['dispatch-watchdog friction --epic-id PROJ-1000 --since 2w', 'one epic, the last two weeks (14 calendar days and today)'],
      ['dispatch-watchdog friction --since 2026-04-01 --json', 'since a date, as JSON'],
    ],
    exitCodes: [
      ['ok', 'printed (also when nothing happened)'],
      ['input', 'bad --since, or an unreadable state dir'],
    ],
  });
}
