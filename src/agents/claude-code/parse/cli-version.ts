// Which Claude Code a row runs, and what that version is known to do (docs/claude-code.md,
// section 4; ../shared/reference/claude-code-2.1.332.md). Every transcript record carries its
// writer's `version` ("2.1.332"), and so does `<config dir>/sessions/<pid>.json`. The rules that
// differ by version ask here; an unknown version answers `undefined` (the evidence decides, as
// before the check existed). Pure.

/** A Claude Code version as three numbers, or undefined when `v` is not `major.minor.patch`. */
export function parseCliVersion(v: string | undefined): [number, number, number] | undefined {
  const m = v === undefined ? null : /^(\d+)\.(\d+)\.(\d+)/.exec(v.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

/** `a` is `b` or newer; undefined when either is not a version. */
export function isAtLeast(a: string | undefined, b: string): boolean | undefined {
  const x = parseCliVersion(a);
  const y = parseCliVersion(b);
  if (!x || !y) return undefined;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return true;
}

/**
 * The first Claude Code version with each behaviour the watchdog reads differently (release
 * notes and the two versions run for real, 2.1.197 and 2.1.332).
 */
export const CLAUDE_SINCE = {
  /** `Agent(...)` runs in the background unless told otherwise: a lead's turn ends while its subagent works. */
  backgroundSubagents: '2.1.198',
  /** A Bash call that reaches its `timeout` is moved to the background instead of killed ("moved to the background (ID: …)"). */
  autoBackground: '2.1.210',
  /** `api-request` records, one per model request (main and subagent transcripts); a subagent's retries write no `system/api_error`. */
  apiRequestRecords: '2.1.300',
  /** A `-p` run waits for its background agents and commands before it exits (up to its ceiling). */
  printWaitsForBackground: '2.1.292',
} as const;

export type ClaudeBehaviour = keyof typeof CLAUDE_SINCE;

/** Answers by behaviour and version: asked per record of a busy wave, for a handful of versions. */
const answers = new Map<string, boolean | undefined>();
/** Versions remembered at most (then forgotten all at once). @defaultValue 256 */
const ANSWERS_MAX = 256;

/** Whether `version` has `behaviour`: undefined when the version is not known. */
export function hasBehaviour(version: string | undefined, behaviour: ClaudeBehaviour): boolean | undefined {
  if (version === undefined) return undefined;
  const key = `${behaviour} ${version}`;
  if (answers.has(key)) return answers.get(key);
  if (answers.size >= ANSWERS_MAX) answers.clear();
  const answer = isAtLeast(version, CLAUDE_SINCE[behaviour]);
  answers.set(key, answer);
  return answer;
}
