// What one check leaves for the next, in one value the loop owns: `runCheck(env, memory, nowMs)`
// reads it and returns the memory the next check starts from (`CheckResult.memory`). The loop
// writes only its own two fields (isLagged, unobserved); a single check (--once, checkWave)
// starts from `newCheckMemory()`.
import type { Wave } from './contracts/state-file.js';
import type { RowOutputs } from './core/row-output.js';
import type { Suspects } from './core/row-trust.js';
import type { UnobservedSpan } from './core/unobserved.js';
import type { JsonBytes } from './files/json-bytes.js';
import type { RowTexts } from './core/report.js';
import type { ObservedTask } from './check-observe.js';

/**
 * The between-check memory. The reads' judgement (previousWave, trustedRead, suspects, lastRead)
 * is replaced in the memory a check returns. The caches and records (observed, rowOutputs,
 * terminalSince, losses, reportBytes) are updated in place: copying 10,000 agents' entries each
 * check would cost more than the check, and a check that throws half-way must still remember what
 * it observed and what it logged (a loss is reported once). A thrown check's replaced fields are
 * lost: the next check starts from the judgement before it.
 */
export interface CheckMemory {
  /** Written by the loop for each check: it woke late, so plan re-observes before acting. */
  readonly isLagged: boolean;
  /** Written by the loop: each late wake (how late, when); time the watchdog did not see pass is no agent's silence. */
  readonly unobserved: UnobservedSpan[];
  /** The last read judged: rows it lists may not silently vanish. */
  readonly previousWave?: Wave;
  /** The last read as trusted (before the overlay): what a later read may not regress from. */
  readonly trustedRead?: Wave;
  /** Rows of trustedRead that later reads regressed: since when (check time), until confirmed. */
  readonly suspects: Suspects;
  /** The last read as parsed, and as judged (its unchanged rows' tasks kept from the read before). */
  readonly lastRead?: { parsed: Wave; kept: Wave };
  /** state_rows_lost already logged this run (each once), and how many of them were about torn reads. */
  readonly losses: { readonly reported: Set<string>; tornReports: number };
  /** Each row's last_output as last seen: a change is progress. */
  readonly rowOutputs: RowOutputs;
  /** Each in-flight task's last observation, by task id (reused while unchanged). */
  readonly observed: Map<string, ObservedTask>;
  /** When each terminal row was first read terminal this run: its agent is watched a while for still running. */
  readonly terminalSince: Map<string, number>;
  /** Encodes watchdog.json into one buffer kept from check to check (files/json-bytes.ts); made at the first write. */
  readonly reportBytes?: JsonBytes;
  /** watchdog.json's row texts, made again only where a row changed more than its idle time and reason. */
  readonly rowTexts?: RowTexts;
}

/** The memory before the first check: nothing read, nothing trusted, nothing reported. */
export function newCheckMemory(): CheckMemory {
  return {
    isLagged: false,
    unobserved: [],
    suspects: new Map(),
    losses: { reported: new Set(), tornReports: 0 },
    rowOutputs: new Map(),
    observed: new Map(),
    terminalSince: new Map(),
  };
}

/** At most this many state_rows_lost events about torn (ignored) reads per run. */
export const MAX_TORN_REPORTS = 10;

/** Whether a loss with this fingerprint is to be reported now (each once; torn ones at most MAX_TORN_REPORTS a run); notes it when so. */
export function shouldReportLoss(memory: CheckMemory, fingerprint: string, isConfirmed: boolean): boolean {
  const { losses } = memory;
  if (losses.reported.has(fingerprint)) return false;
  if (!isConfirmed && losses.tornReports >= MAX_TORN_REPORTS) return false;
  losses.reported.add(fingerprint);
  if (!isConfirmed) losses.tornReports++;
  return true;
}
