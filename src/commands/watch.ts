// `dispatch-watchdog --epic-id …`: the main command, on the program itself (no command word).
// The loop and --once are src/watch.ts; this is its flags, help and exit codes.
import type { Command } from 'commander';
import { DEFAULTS } from '../contracts/defaults.js';
import { InputError } from '../contracts/errors.js';
import { EXIT } from '../contracts/exit-codes.js';
import { parseDurationMs } from '../core/period.js';
import { resolveOptions, type WatchdogFlags } from '../options.js';
import { runWatch } from '../watch.js';
import { didYouMean, teach } from '../cli-help.js';
import { configOption, otlpOption, stateDirOption, watchOptions, type CliContext } from './command.js';

export function registerWatch(program: Command, { env, setCode, flags: parsers, flagProblems }: CliContext): void {
  program.option('--epic-id <id>', 'epic to watch (epics/<id>/state.yaml under the state dir)');
  watchOptions(program, parsers, '; stalls are caught at their deadline anyway')
    .option(
      '--once',
      `one check, then exit: ${EXIT.ok} all in-flight tasks healthy, ${EXIT.stall} stall found or a person needed, ${EXIT.unwatched} a row cannot be judged (not watched), ${EXIT.input} bad input or usage`,
    )
    .option('--dry-run', 'judge and print, but write nothing and act on nothing')
    .option('--now <iso-time>', 'evaluate the wave as of this moment (implies --once; no log lines, no actions): for examples and post-mortems')
    .option(
      '--wait-for-state <duration>',
      `wait this long for a state file that is not there yet (45s, 10m, 2h), for a watchdog started before the orchestrator writes the wave (default ${DEFAULTS.fixed.missing_epic_settle_ms / 1000}s; --once: none)`,
    );
  otlpOption(configOption(stateDirOption(program)))
    .option('--json', 'print each check result as JSON on stdout')
    .action(async (flags: WatchdogFlags & { waitForState?: string }) => {
      const [word] = program.args;
      if (word !== undefined) {
        const names = program.commands.map((c) => c.name());
        const guess = didYouMean(word, names);
        program.error(`error: unknown command '${word}'${guess ? `. Did you mean '${guess}'?` : `. Commands: ${names.join(', ')}.`}`, {
          exitCode: EXIT.input,
          code: 'commander.unknownCommand',
        });
      }
      const waitMs = flags.waitForState === undefined ? undefined : parseDurationMs(flags.waitForState);
      const problems =
        waitMs === undefined && flags.waitForState !== undefined
          ? [
              ...flagProblems,
              new InputError('bad_flag', `--wait-for-state: expected a duration (45s, 10m, 2h), got ${JSON.stringify(flags.waitForState)}.`, {
                hint: 'e.g. --wait-for-state 10m',
              }),
            ]
          : flagProblems;
      const opts = await resolveOptions(flags, env.env, env.cwd, problems);
      setCode(await runWatch(opts, { ...env.watchDeps, output: env.output, ...(waitMs !== undefined ? { missingEpicSettleMs: waitMs } : {}) }));
    });
  teach(program, {
    examples: [
      ['dispatch-watchdog --epic-id PROJ-1000', 'watch the wave until no task is in flight; recover stalls (redispatch, then escalate)'],
      [
        'dispatch-watchdog next --epic-id PROJ-1000 --json',
        `what an orchestrator runs after dispatching a wave: returns when it must act (exit ${EXIT.requests}, ${EXIT.unanswered}, ${EXIT.escalation}) or the wave is done (${EXIT.ok}); docs/orchestrator.md`,
      ],
      ['dispatch-watchdog --epic-id PROJ-1000 --once --action report', `one check, print the table, exit ${EXIT.ok} or ${EXIT.stall}`],
      [
        'dispatch-watchdog --epic-id PROJ-1000 --wait-for-state 10m',
        'start before the orchestrator dispatches: wait up to 10 minutes for epics/PROJ-1000/state.yaml',
      ],
      ['dispatch-watchdog --epic-id PROJ-1000 --now 2026-04-02T10:10:00Z', 'judge the wave as of that moment (post-mortem), write nothing'],
      ['dispatch-watchdog help status', 'the help of one command'],
    ],
    exitCodes: [
      ['ok', 'the loop ended (wave done, or stopped by SIGINT/SIGTERM); with --once: no stall; --help, --version'],
      [
        'stall',
        'with --once or --now: a stall was found (or a loop, when looping.act acts on loops), a request went unanswered, or a person is needed (a row its agent disagrees with, its reconcile due or pending; a human wait past its limit)',
      ],
      [
        'unwatched',
        'with --once or --now: no stall, but a row cannot be judged (an unknown status such as "in-progress", no evidence at all): that agent is NOT watched; stderr names it, with a did-you-mean',
      ],
      ['input'],
      ['failure', 'the world refused (a file cannot be written), or a bug'],
    ],
  });
}
