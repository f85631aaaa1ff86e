import type { CheckResult } from '../check.js';
import { NEXT_EXIT } from '../contracts/next.js';
import type { History } from '../core/history.js';
import { newsOf, nextReason, nextReturnedEvent, type NextNews } from '../core/next.js';
import type { DispatchLog } from '../journal/dispatch-log.js';
import { StatePaths } from '../files/paths.js';
import { toJson } from '../present/sinks.js';
import type { ResolvedOptions } from '../options.js';
import { runWatch, type NextMode, type WatchDeps } from '../watch.js';
import type { Command } from 'commander';
import { parseDurationMs } from '../core/period.js';
import { InputError } from '../contracts/errors.js';
import { EXIT } from '../contracts/exit-codes.js';
import { followHolder, liveHolder } from './next-follow.js';
import { resolveOptions, type WatchdogFlags } from '../options.js';
import { teach } from '../cli-help.js';
import { configOption, stateDirOption, watchOptions, type CliContext } from './command.js';
import { buildNextDoc, renderNextDoc, type WaveFacts } from './next-doc.js';

type OkResult = Extract<CheckResult, { ok: true }>;

/** The `next` behaviour for runWatch. */
export function nextMode(opts: ResolvedOptions, print: (text: string) => void, maxWaitMs?: number, warn: (text: string) => void = print): NextMode {
  const paths = new StatePaths(opts.stateDir);
  return {
    ...(maxWaitMs !== undefined ? { maxWaitMs } : {}),
    shouldStop: (r, history) => nextReason(newsOf(history), r.isWaveDone) !== undefined,
    async finish(r: OkResult | undefined, history: History, log: DispatchLog, isMaxWait: boolean) {
      if (!r) {
        // --max-wait ran out before any check could read the state file (its problem is on stderr).
        warn(`dispatch-watchdog next: --max-wait passed before the state file could be read once; nothing to report (exit ${NEXT_EXIT.max_wait}).\n`);
        await log.append({ event: 'next_returned', reason: 'max_wait', exit_code: NEXT_EXIT.max_wait, requests: [], unanswered: [], escalations: [] });
        return NEXT_EXIT.max_wait;
      }
      const news = newsOf(history);
      const doc = await buildNextDoc(paths, opts.epicId, news, history, r, isMaxWait);
      print(opts.isJson ? toJson(doc) + '\n' : renderNextDoc(doc));
      // Printed first, journaled second: a crash in between repeats the news rather than lose it.
      await log.append(nextReturnedEvent(doc, news));
      return doc.exit_code;
    },
  };
}

/**
 * Run `next`; resolves to its exit code. An epic another watchdog holds (`serve`, a standalone
 * loop) is followed, not refused: `next` reports what that watchdog finds (next-follow.ts), and
 * watches the epic itself once that one stops.
 */
export async function runNext(opts: ResolvedOptions, deps: WatchDeps, maxWaitMs?: number): Promise<number> {
  const paths = new StatePaths(opts.stateDir);
  const untilMs = maxWaitMs === undefined ? undefined : deps.clock.nowMs() + maxWaitMs;
  const left = () => (untilMs === undefined ? undefined : Math.max(0, untilMs - deps.clock.nowMs()));
  for (;;) {
    const holder = await liveHolder(paths, opts.epicId, deps.pid);
    if (holder) {
      const makeDoc = async (news: NextNews, history: History, wave: WaveFacts, isMaxWait: boolean) => {
        const doc = await buildNextDoc(paths, opts.epicId, news, history, wave, isMaxWait);
        return { doc, text: opts.isJson ? JSON.stringify(doc) + '\n' : renderNextDoc(doc) };
      };
      const followed = await followHolder(opts, { ...deps, makeDoc }, holder, left());
      if (followed === 'signal') {
        deps.output.err(`dispatch-watchdog next: stopped by a signal before anything needed the orchestrator; run it again.\n`);
        return EXIT.failure;
      }
      if (followed !== 'free') return followed;
    }
    try {
      return await runWatch(
        opts,
        deps,
        nextMode(
          opts,
          (t) => deps.output.out(t),
          left(),
          (t) => deps.output.err(t),
        ),
      );
    } catch (e) {
      // Taken by another watchdog between the look and the lock: follow that one.
      if (e instanceof InputError && e.code === 'lock_held' && !deps.signal.aborted) continue;
      throw e;
    }
  }
}

export function registerNext(program: Command, { env, setCode, flags: parsers }: CliContext): void {
  const cmd = program
    .command('next')
    .description(
      `watch until the orchestrator must act, print it, exit: ${EXIT.ok} wave complete, ${EXIT.requests} new requests, ${EXIT.unanswered} a request unanswered, ${EXIT.escalation} an escalation, ${EXIT.attention} a person is needed (${EXIT.input} bad input, ${EXIT.failure} failure)`,
    )
    .requiredOption('--epic-id <id>', 'epic to watch');
  configOption(stateDirOption(watchOptions(cmd, parsers)))
    .option('--json', 'print one JSON document (schemas/next.schema.json)')
    .option('--max-wait <duration>', `return after this long even if nothing needs the orchestrator (45s, 10m, 2h), exit ${EXIT.max_wait}`)
    .action(async (flags: WatchdogFlags & { maxWait?: string }) => {
      const maxWaitMs = flags.maxWait === undefined ? undefined : parseDurationMs(flags.maxWait);
      if (flags.maxWait !== undefined && !maxWaitMs) {
        throw new InputError('bad_flag', `--max-wait: expected a duration (45s, 10m, 2h), got ${JSON.stringify(flags.maxWait)}.`, {
          hint: 'e.g. --max-wait 30m',
        });
      }
      const opts = await resolveOptions({ ...flags, once: false, dryRun: false }, env.env, env.cwd);
      setCode(await runNext(opts, { ...env.watchDeps, output: env.output }, maxWaitMs));
    });
  teach(cmd, {
    examples: [
      ['dispatch-watchdog next --epic-id PROJ-1000 --json', 'wait until the orchestrator must act, then print one JSON document (schemas/next.schema.json)'],
      [
        'dispatch-watchdog next --epic-id PROJ-1000 --stall-window 300 --max-wait 30m',
        `the same, as lines for people, with a 5-minute stall window; back after 30 minutes at most (exit ${EXIT.max_wait})`,
      ],
    ],
    exitCodes: [
      ['ok', 'the wave is complete: every row terminal or blocked and no request pending'],
      ['requests', 'new requests to carry out on agents: cancel, redispatch, resume, nudge (then answer each; run next again)'],
      ['unanswered', 'a request passed its answer_by without an answer'],
      ['escalation', 'a ticket was escalated to Blocked (needs no answer)'],
      [
        'attention',
        'a person is needed: a reconcile request, a long human wait, an orphaned action, an unobservable agent, a row whose status is unknown, a stall in report mode',
      ],
      ['max_wait', '--max-wait passed and nothing needed the orchestrator (run next again to keep waiting)'],
      ['input', 'bad input or usage; an epic with no state file (after a short settle: nothing is created for it)'],
      ['failure', 'a failure, or stopped by a signal before anything needed the orchestrator'],
    ],
  });
}
