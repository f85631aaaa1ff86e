// `dispatch-watchdog replay <transcript.jsonl>… [--timeout S…] [--json]`: reads recorded
// transcripts (and their subagents' transcripts) and prints what the watchdog would have
// judged, moment by moment. The judging is core/replay (pure); this file only reads files.
import { toJson } from '../present/sinks.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { InputError } from '../contracts/errors.js';
import { gapHistogram, renderGapHistogramSvg, renderGapHistogramText, silentGaps } from '../core/gap-histogram.js';
import { writeFileAtomic } from '../files/atomic-write.js';
import { ReplayLineSchema } from '../contracts/replay.js';
import type { Output } from '../deps.js';
import { DEFAULT_POLICY, type Policy } from '../core/policy.js';
import { renderReplayComparison, renderReplayText, replayJsonLines } from '../core/render-replay.js';
import { renderScore } from '../core/render-score.js';
import type { ReplayInput, ReplayResult, ReplaySource } from '../core/replay-types.js';
import type { AgentHarness } from '../agents/harness.js';
import { harnessOf, allHarnesses } from '../agents/harnesses.js';
import type { Command } from 'commander';
import { DEFAULTS } from '../contracts/defaults.js';
import { EXIT } from '../contracts/exit-codes.js';
import { resolvePolicy } from '../core/policy.js';
import { loadConfig } from '../options.js';
import { teach } from '../cli-help.js';
import type { CliContext } from './command.js';

/** The times of a file's records (a line without a timestamp is not a moment). */
function recordTimes(src: ReplaySource): number[] {
  const out: number[] = [];
  for (const line of src.text.split('\n')) {
    const m = /"timestamp":"([^"]+)"/.exec(line);
    const ms = m ? Date.parse(m[1]!) : NaN;
    if (Number.isFinite(ms)) out.push(ms);
  }
  return out;
}

export interface ReplayFlags {
  /** Write the histogram of silent gaps here as SVG. */
  svgFile?: string;
  /** Base windows in seconds; one pass per value. @defaultValue [120] */
  timeouts: number[];
  isJson: boolean;
  /** Print issue 19's figures over all the files (core/replay-score) instead of each timeline. */
  isScore?: boolean;
  /** With isScore: a crash simulated after every record, not at seeded moments. */
  isEveryRecord?: boolean;
  /** Exemption settings from a config file (its base window is replaced by each --timeout). */
  policy?: Policy;
}

/** Largest transcript replayed, in bytes. @defaultValue 268435456 (256 MB) */
export const MAX_REPLAY_BYTES = 256 * 1024 * 1024;

async function readSource(file: string): Promise<ReplaySource> {
  let st;
  try {
    st = await fs.stat(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError('missing_file', code === 'ENOENT' ? 'transcript not found.' : `cannot read the transcript (${code}).`, {
      location: { file },
      hint: 'Give the path of a Claude Code transcript (~/.claude/projects/<project>/<session-id>.jsonl) or a Codex rollout (~/.codex/sessions/…/rollout-*.jsonl).',
      cause: e,
    });
  }
  if (!st.isFile())
    throw new InputError('unreadable_file', 'not a regular file.', { location: { file }, hint: 'Give a .jsonl transcript file, not a directory or a pipe.' });
  if (st.size > MAX_REPLAY_BYTES)
    throw new InputError('unreadable_file', `transcript is ${st.size} bytes, over the ${MAX_REPLAY_BYTES}-byte limit.`, { location: { file } });
  return { file, text: await fs.readFile(file, 'utf8') };
}

/** The harness whose file this is: the first that claims it, else the default CLI's (a Claude Code transcript). */
export function harnessOfFile(src: ReplaySource): AgentHarness {
  const head = src.text.slice(0, 4096);
  const fallback = harnessOf({})!;
  return allHarnesses().find((h) => h !== fallback && h.replay.isOwnFile(src.file, head)) ?? fallback;
}

/** A recorded session and the files its harness folds with it (subagents' transcripts), read for replay. */
export async function readReplayInput(file: string): Promise<ReplayInput & { harness: AgentHarness }> {
  const transcript = await readSource(file);
  const harness = harnessOfFile(transcript);
  return { transcript, children: await Promise.all((await harness.replay.childFiles(file)).map(readSource)), harness };
}

/** Replay every file at every window and print the result; returns the results (tests). */
export async function runReplay(files: readonly string[], flags: ReplayFlags, output: Output): Promise<ReplayResult[]> {
  const inputs = [];
  for (const file of files) inputs.push(await readReplayInput(file));
  const base = flags.policy ?? DEFAULT_POLICY;
  const results: ReplayResult[] = [];
  for (const seconds of flags.timeouts)
    for (const input of inputs) results.push(input.harness.replay.replay(input, { ...base, baseTimeoutMs: Math.round(seconds * 1000) }));
  // A file with no transcript record (a README, a log of another tool) is not a replay of nothing.
  const empty = results.find((r) => r.summary.records === 0);
  if (empty) {
    throw new InputError(
      'unreadable_file',
      `no ${harnessOfFile(inputs.find((i) => i.transcript.file === empty.file)!.transcript).wording.displayName} transcript record in this file${empty.badLines.length ? ` (${empty.badLines.length} line(s) not JSON)` : ''}.`,
      {
        location: { file: empty.file },
        hint: 'Give a Claude Code transcript (~/.claude/projects/<project>/<session-id>.jsonl, or a stream-json output file) or a Codex rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl).',
      },
    );
  }
  if (flags.isScore) {
    // Each CLI's files are scored by its own harness (one block per CLI present).
    const harnesses = [...new Set(inputs.map((i) => i.harness))];
    for (const seconds of flags.timeouts)
      for (const h of harnesses) {
        const policy = { ...base, baseTimeoutMs: Math.round(seconds * 1000) };
        if (harnesses.length > 1) output.out(`${h.wording.displayName}:\n`);
        output.out(
          renderScore(
            h.replay.score(
              inputs.filter((i) => i.harness === h),
              policy,
              flags.isEveryRecord ? { everyRecord: true } : {},
            ),
          ).join('\n') + '\n',
        );
      }
    return results;
  }
  for (const r of results) {
    if (flags.isJson) {
      for (const line of replayJsonLines(r)) output.out(toJson(ReplayLineSchema.parse(line)) + '\n');
    } else {
      output.out(renderReplayText(r) + '\n');
    }
  }
  if (!flags.isJson && results.length > 1) output.out(renderReplayComparison(results));
  // Where each window falls among the silences the agents really had.
  const histogram = gapHistogram(
    inputs.flatMap((i) => silentGaps([i.transcript, ...(i.children ?? [])].flatMap(recordTimes))),
    flags.timeouts.map((s) => Math.round(s * 1000)),
  );
  if (!flags.isJson) output.out('\n' + renderGapHistogramText(histogram).join('\n') + '\n');
  if (flags.svgFile !== undefined) {
    const title = inputs.length === 1 ? `silent gaps in ${path.basename(inputs[0]!.transcript.file)}` : `silent gaps in ${inputs.length} transcripts`;
    await writeFileAtomic(flags.svgFile, renderGapHistogramSvg(histogram, title), { mode: 0o644 });
    if (!flags.isJson) output.out(`wrote ${flags.svgFile}\n`);
  }
  return results;
}

export function registerReplay(program: Command, { env, setCode, flags: parsers }: CliContext): void {
  const cmd = program
    .command('replay')
    .description(
      'replay recorded Claude Code transcripts or Codex rollouts through the watchdog: the verdict timeline, the stalls it would flag and how many were false alarms (the agent went on by itself)',
    )
    .argument(
      '<transcript.jsonl...>',
      'transcripts or rollouts to replay (each read by the CLI that wrote it; Claude Code subagents under <session>/subagents/ are read with their parent)',
    )
    // No commander default: it would print "(default: [])" after ours.
    .option(
      '--stall-window <seconds...>',
      `base window(s) in seconds; several values print one pass each, a comparison table, and where each falls in the histogram of silent gaps (default ${DEFAULTS.timeout_seconds})`,
      (v: string, prev?: number[]) => parsers.collectSeconds('--stall-window')(v, prev ?? []),
    )
    .option('--timeout <seconds...>', 'the same as --stall-window (its older name)', (v: string, prev?: number[]) =>
      parsers.collectSeconds('--timeout')(v, prev ?? []),
    )
    .option('--svg <file>', 'also write the histogram of silent gaps against the windows as an SVG file')
    .option('--config <file>', 'read exemption settings from this watchdog.config.yaml')
    .option(
      '--score',
      'print the false-stall figures over all the files (text) instead of each timeline: false stalls while the agent was at work (human waits apart), finished turns called stalled, crashes simulated at seeded moments and flagged within the window + 1 s, API give-ups flagged and cleared (docs/verdicts.md)',
    )
    .option('--every-record', 'with --score: simulate a crash after every record (each file cut there), not at seeded moments')
    .option('--json', 'print NDJSON: one object per verdict change, then a summary per transcript and window (schemas/replay-line.schema.json)')
    .action(
      async (
        files: string[],
        flags: { stallWindow?: number[]; timeout?: number[]; svg?: string; config?: string; json?: boolean; score?: boolean; everyRecord?: boolean },
      ) => {
        const config = flags.config ? (await loadConfig(flags.config, env.cwd, env.cwd)).config : {};
        const given = [...(flags.stallWindow ?? []), ...(flags.timeout ?? [])];
        const timeouts = given.length > 0 ? given : [config.timeout_seconds ?? DEFAULTS.timeout_seconds];
        const svgFile = flags.svg === undefined ? undefined : path.resolve(env.cwd, flags.svg);
        await runReplay(
          files.map((f) => path.resolve(env.cwd, f)),
          {
            timeouts,
            isJson: Boolean(flags.json),
            isScore: Boolean(flags.score),
            isEveryRecord: Boolean(flags.everyRecord),
            policy: resolvePolicy(config),
            svgFile,
          },
          env.output,
        );
        setCode(EXIT.ok);
      },
    );
  teach(cmd, {
    examples: [
      ['dispatch-watchdog replay ~/.claude/projects/-home-me-app/4d5611e5.jsonl', 'the verdict timeline of one session and its stalls, false alarms marked'],
      [
        'dispatch-watchdog replay ~/.claude/projects/-home-me-app/*.jsonl --stall-window 60 120 300 --svg gaps.svg',
        'pick a window: one pass per value, one row per window, and the histogram of silent gaps with each window on it (also as SVG)',
      ],
      [
        'dispatch-watchdog replay ~/.claude/projects/*/*.jsonl --score --stall-window 120 300',
        'how many false stalls each window would have given on your own sessions, and whether crashes and give-ups were caught',
      ],
      ['dispatch-watchdog replay session.jsonl --json', 'NDJSON: one object per verdict change, then a summary'],
    ],
    exitCodes: [
      ['ok', 'replayed (whatever it found)'],
      ['input', 'a file that cannot be read or holds no Claude Code record (not a transcript), or a bad --stall-window'],
    ],
  });
}
