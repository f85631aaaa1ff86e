// How far V8 lets the heap grow past what its last full collection kept (issue 37's 10,000-agent
// memory goal). A check builds an observation, an assessment and a watchdog.json row per agent
// and holds them to its end; at 10,000 busy agents it allocates so much meanwhile that ~20 MB of
// them survive two scavenges, are promoted, and die in the old generation a check later. V8 then
// grows the old generation by its own factor (measured: ~2.7× the ~185 MB a full collection
// leaves) before it collects, so the peak RSS was ~610 MB for ~185 MB alive. With the factor
// fixed at 1.8 the same wave peaks at ~370 MB and its checks cost no more (bench/busy.ts,
// docs/performance.md); at 1.4 the peak is ~320 MB but the checks cost ~10% more.
//
// `--heap-growing-percent` is read at each full collection, so unlike the heap's sizes it takes
// effect when set after the start. Set only by the CLI's process entry (`runProcess`): a program
// that embeds the library keeps its own heap settings, and so does a user who started node with
// the flag.
import { setFlagsFromString } from 'node:v8';

/** The old generation may grow to 1.8× what the last full collection kept. */
export const HEAP_GROWING_PERCENT = 80;

/**
 * Fix V8's heap growing factor for this process unless `execArgv` already sets it.
 * @returns whether the flag was set.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv, percent = HEAP_GROWING_PERCENT): boolean {
  if (execArgv.some((a) => /^--heap[-_]growing[-_]percent(=|$)/.test(a))) return false;
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}
