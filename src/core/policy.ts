// The thresholds assess() applies, resolved from defaults < config file < flags. Pure.
import type { WatchdogConfig } from '../contracts/config.js';
import { DEFAULTS } from '../contracts/defaults.js';

export interface Policy {
  /** Base stall window. @defaultValue 120000 */
  baseTimeoutMs: number;
  /** A shell call's own timeout above this extends the window. @defaultValue 120000 */
  bashLongTimeoutMs: number;
  /** Added to a long shell timeout. @defaultValue 60000 */
  bashGraceMs: number;
  /** Added to a shell call's own limit of bashLongTimeoutMs or less: its CLI writes the result just after (not configurable). @defaultValue 5000 */
  shellLimitSettleMs: number;
  /** Window multiplier during rate-limit backoff. @defaultValue 2 */
  rateLimitFactor: number;
  /** Lower-case substrings of the last output that mean backoff. */
  rateLimitPatterns: string[];
  /** Minimum window while a shell command polls CI. @defaultValue 600000 */
  ciPollingMs: number;
  /** Substrings of a shell command that polls CI. */
  ciPollingPatterns: string[];
  /** Grace after an open tool call's own timeout. @defaultValue 60000 */
  openToolGraceMs: number;
  /** A timestamp further ahead than this is inconsistent. @defaultValue 300000 */
  futureSkewMs: number;
  /** Same call, same input, this many times in a row is looping. @defaultValue 4 */
  loopRepeatCount: number;
  /** Same error this many times is looping. @defaultValue 3 */
  loopErrorCount: number;
}

const D = DEFAULTS;
const E = D.exemptions;

/** contracts/defaults.ts in the units the core uses. */
export const DEFAULT_POLICY: Policy = {
  baseTimeoutMs: D.timeout_seconds * 1000,
  bashLongTimeoutMs: E.bash_long_timeout_ms,
  bashGraceMs: E.bash_grace_seconds * 1000,
  shellLimitSettleMs: D.fixed.shell_limit_settle_ms,
  rateLimitFactor: E.rate_limit_factor,
  rateLimitPatterns: [...E.rate_limit_patterns],
  ciPollingMs: E.ci_polling_seconds * 1000,
  ciPollingPatterns: [...E.ci_polling_patterns],
  openToolGraceMs: E.open_tool_grace_seconds * 1000,
  futureSkewMs: E.future_skew_seconds * 1000,
  loopRepeatCount: D.looping.repeat_count,
  loopErrorCount: D.looping.error_count,
};

/** Defaults, then the config file, then `timeoutSeconds` from the command line. */
export function resolvePolicy(config: WatchdogConfig, timeoutSeconds?: number): Policy {
  const e = config.exemptions ?? {};
  const l = config.looping ?? {};
  const base = timeoutSeconds ?? config.timeout_seconds;
  const d = DEFAULT_POLICY;
  return {
    ...d,
    baseTimeoutMs: base === undefined ? d.baseTimeoutMs : Math.round(base * 1000),
    bashLongTimeoutMs: e.bash_long_timeout_ms ?? d.bashLongTimeoutMs,
    bashGraceMs: e.bash_grace_seconds === undefined ? d.bashGraceMs : e.bash_grace_seconds * 1000,
    rateLimitFactor: e.rate_limit_factor ?? d.rateLimitFactor,
    rateLimitPatterns: (e.rate_limit_patterns ?? d.rateLimitPatterns).map((p) => p.toLowerCase()),
    ciPollingMs: e.ci_polling_seconds === undefined ? d.ciPollingMs : e.ci_polling_seconds * 1000,
    ciPollingPatterns: e.ci_polling_patterns ?? d.ciPollingPatterns,
    openToolGraceMs: e.open_tool_grace_seconds === undefined ? d.openToolGraceMs : e.open_tool_grace_seconds * 1000,
    futureSkewMs: e.future_skew_seconds === undefined ? d.futureSkewMs : e.future_skew_seconds * 1000,
    loopRepeatCount: l.repeat_count ?? d.loopRepeatCount,
    loopErrorCount: l.error_count ?? d.loopErrorCount,
  };
}
