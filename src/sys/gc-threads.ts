// Young-generation collections on the main thread alone (issue 37's busy wave). A busy check
// allocates ~20 MB (each changed transcript's records parsed, an observation and a verdict per
// agent) and V8 scavenges it with a task per core: on the 2-core machine the bench runs on, the
// helper threads' share of those scavenges cost more CPU than the scavenges themselves save the
// main thread, which waits for them anyway. Measured on the busy wave of 1,000 agents, the same
// build, four alternated runs each (docs/performance.md, round eight): 76–88 ms of whole-process
// CPU a check with `--no-parallel-scavenge` against 74.5–107.5 ms without (means 80.5 and 90),
// the same peak RSS.
//
// `--parallel-scavenge` is read at each scavenge (the number of tasks it starts), so it takes
// effect when set after the start. Not so every GC flag: `--single-threaded-gc` (or
// `--no-concurrent-marking`) set at run time aborts V8 at its next full collection, and is never
// set. Set only by the CLI's process entry (`runProcess`): a program that embeds the library keeps
// its own heap settings, and so does a user who started node with a scavenge flag of their own.
import { setFlagsFromString } from 'node:v8';

/**
 * Scavenge on the main thread alone for this process, unless `execArgv` already says how.
 * @returns whether the flag was set.
 */
export function scavengeOnMainThread(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((a) => /^--(no-)?parallel[-_]scavenge(=|$)/.test(a) || /^--single[-_]threaded/.test(a))) return false;
  setFlagsFromString('--no-parallel-scavenge');
  return true;
}
