// `dispatch-watchdog prune`: remove what the watchdog wrote and no longer needs: the files of
// finished epics, and old hook activity, read positions and recovery checkpoints. Never a state
// file, a friction note or what one links to, the dispatch log, or anything of an epic whose wave
// is still running (its requests may be pending) or that a live watchdog holds. What may go is the layout's
// (files/paths.ts STATE_DIR_LAYOUT, its `prune` rule); this walks it.
import { toJson } from '../present/sinks.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parseCheckpoint } from '../contracts/checkpoint.js';
import { InputError } from '../contracts/errors.js';
import { isSafeId } from '../contracts/ids.js';
import { readWave } from '../check.js';
import { readLock } from '../journal/lock.js';
import { loadHistory } from '../journal/log-summary.js';
import { hasPendingRequest } from '../core/history.js';
import { overlayWave } from '../core/overlay.js';
import { replacementStates } from '../wiring.js';
import { isLayoutEntry, STATE_DIR_LAYOUT, StatePaths } from '../files/paths.js';
import { isAlive } from '../sys/proc-identity.js';
import type { Command } from 'commander';
import { EXIT } from '../contracts/exit-codes.js';
import { parseDurationMs } from '../core/period.js';
import { existingStateDir } from '../options.js';
import { teach } from '../cli-help.js';
import { stateDirOption, type CliContext } from './command.js';

/** What prune may remove of a finished epic, and of the state dir whatever the epic: from the layout. */
const EPIC_PRUNED = STATE_DIR_LAYOUT.filter((e) => e.in === 'epic' && e.prune === 'finished_epic');
const ROOT_UNUSED = STATE_DIR_LAYOUT.filter((e) => e.in === 'root' && e.prune === 'unused');
const CHECKPOINTS = STATE_DIR_LAYOUT.filter((e) => e.in === 'root' && e.prune === 'checkpoint');

export interface PruneEntry {
  /** Relative to the state dir. */
  path: string;
  bytes: number;
  why: string;
}

export interface PruneReport {
  older_than: string;
  is_dry_run: boolean;
  removed: PruneEntry[];
  /** Epics left alone, and why. */
  kept_epics: { epic_id: string; why: string }[];
  /** Files old enough to go that a friction note links to: kept with the note. */
  kept_linked: string[];
}

interface Ctx {
  paths: StatePaths;
  cutoffMs: number;
  out: PruneEntry[];
}

/** Every regular file under `p` (or `p` itself) older than the cut-off. */
async function oldFiles(p: string, cutoffMs: number): Promise<{ file: string; bytes: number }[]> {
  const st = await fs.lstat(p).catch(() => undefined);
  if (!st) return [];
  if (st.isDirectory()) {
    const names = await fs.readdir(p);
    return (await Promise.all(names.map((n) => oldFiles(path.join(p, n), cutoffMs)))).flat();
  }
  return st.mtimeMs < cutoffMs ? [{ file: p, bytes: st.size }] : [];
}

async function add(ctx: Ctx, p: string, why: string) {
  for (const f of await oldFiles(p, ctx.cutoffMs)) ctx.out.push({ path: ctx.paths.relative(f.file), bytes: f.bytes, why });
}

/**
 * Whether the epic's wave is over: every wave completed, or every row terminal or blocked as the
 * watchdog judges it (its log applied: a row it replaced or escalated is no longer in flight, whatever
 * the row still says), no request waiting for an answer, and no replacement it launched still running.
 */
export async function epicState(paths: StatePaths, epicId: string): Promise<{ isFinished: boolean; why: string }> {
  const lock = await readLock(paths.lockFile(epicId));
  if (lock && isAlive(lock.pid)) return { isFinished: false, why: `a watchdog (pid ${lock.pid}) is watching it` };
  try {
    const wave = await readWave(paths, epicId);
    if (wave.isEveryWaveCompleted) return { isFinished: true, why: 'every wave completed' };
    if (wave.tasks.length === 0) return { isFinished: false, why: 'its wave lists no task' };
    const { history } = await loadHistory(paths, epicId, { isWritable: false });
    if (hasPendingRequest(history)) return { isFinished: false, why: "a request waits for the orchestrator's answer" };
    const judged = overlayWave(wave, history, epicId, paths.root, await replacementStates(history));
    // A replacement we launched whose process is gone runs no more (its output said how it ended).
    const open = judged.tasks.filter((t) => t.statusClass !== 'terminal' && t.statusClass !== 'blocked' && !(t.isOwnReplacement && t.hasExited));
    if (open.length === 0) return { isFinished: true, why: 'wave complete' };
    return { isFinished: false, why: `${open.length} task(s) not finished; its requests may be pending` };
  } catch (e) {
    if (e instanceof InputError && e.code === 'missing_file') return { isFinished: true, why: 'no state file' };
    if (e instanceof InputError) return { isFinished: false, why: `its state file cannot be read (${e.message})` };
    throw e;
  }
}

/** Find what to prune; remove it unless `isDryRun`. */
export async function prune(paths: StatePaths, opts: { nowMs: number; olderThanMs: number; olderThan: string; isDryRun: boolean }): Promise<PruneReport> {
  const ctx: Ctx = { paths, cutoffMs: opts.nowMs - opts.olderThanMs, out: [] };
  const report: PruneReport = { older_than: opts.olderThan, is_dry_run: opts.isDryRun, removed: ctx.out, kept_epics: [], kept_linked: [] };
  const finished = new Set<string>();
  const epicIds = (await fs.readdir(paths.epicsDir()).catch(() => [] as string[])).filter(isSafeId).sort();
  for (const epicId of epicIds) {
    const state = await epicState(paths, epicId);
    if (!state.isFinished) {
      report.kept_epics.push({ epic_id: epicId, why: state.why });
      continue;
    }
    finished.add(epicId);
    const dir = paths.epicDir(epicId);
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const n of names.filter((n) => EPIC_PRUNED.some((e) => isLayoutEntry(e, n))).sort()) await add(ctx, path.join(dir, n), `epic ${epicId}: ${state.why}`);
  }
  for (const e of ROOT_UNUSED) await add(ctx, path.join(paths.root, e.name), (e.pruneWhy ?? 'unused for {age}').replace('{age}', opts.olderThan));
  for (const e of CHECKPOINTS) {
    for (const f of await oldFiles(path.join(paths.root, e.name), ctx.cutoffMs)) {
      // A checkpoint names its epic; one we cannot read is not ours to judge, and stays.
      const parsed = parseCheckpoint(await fs.readFile(f.file, 'utf8').catch(() => ''), f.file);
      if (!parsed.ok || !(finished.has(parsed.value.epic_id) || !epicIds.includes(parsed.value.epic_id))) continue;
      ctx.out.push({ path: paths.relative(f.file), bytes: f.bytes, why: `recovery checkpoint of finished epic ${parsed.value.epic_id}` });
    }
  }
  // A friction note is kept for ever, so what it links to is too (its checkpoints, above all).
  const linked = await linkedFromNotes(paths);
  report.kept_linked = ctx.out.filter((e) => linked.has(path.join(paths.root, e.path))).map((e) => e.path);
  ctx.out.splice(0, ctx.out.length, ...ctx.out.filter((e) => !linked.has(path.join(paths.root, e.path))));
  if (!opts.isDryRun) {
    for (const e of ctx.out) await fs.rm(path.join(paths.root, e.path), { force: true });
    for (const e of ctx.out) await removeEmptyParents(paths.root, path.dirname(path.join(paths.root, e.path)));
  }
  return report;
}

const safeDecode = (s: string) => {
  try {
    return decodeURI(s);
  } catch {
    return s;
  }
};

/** Every file a friction note links to (`[text](target)`, relative to the note or absolute), as absolute paths. */
async function linkedFromNotes(paths: StatePaths): Promise<Set<string>> {
  const linked = new Set<string>();
  const notes = (await oldFiles(paths.frictionDir(), Infinity)).filter((f) => f.file.endsWith('.md'));
  for (const { file } of notes) {
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = safeDecode(m[1]!.split('#')[0]!);
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) && !/^[A-Za-z]:[\\/]/.test(target)) continue; // a URL
      linked.add(path.resolve(path.dirname(file), target));
    }
  }
  return linked;
}

/** Remove now-empty directories up to (not including) the state dir's top-level folders. */
async function removeEmptyParents(root: string, dir: string) {
  for (let d = dir; path.dirname(d) !== root && d.startsWith(root + path.sep); d = path.dirname(d)) {
    if (
      !(await fs.rmdir(d).then(
        () => true,
        () => false,
      ))
    )
      return;
  }
}

const kb = (n: number) => (n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`);

/** The report as text. Pure. */
export function renderPrune(r: PruneReport): string {
  const total = r.removed.reduce((s, e) => s + e.bytes, 0);
  const verb = r.is_dry_run ? 'would remove' : 'removed';
  const lines = [`${verb} ${r.removed.length} file(s), ${kb(total)}, older than ${r.older_than}${r.is_dry_run ? ' (dry run: nothing removed)' : ''}`];
  for (const e of r.removed) lines.push(`  ${e.path}  (${e.why})`);
  for (const k of r.kept_epics) lines.push(`kept epic ${k.epic_id}: ${k.why}`);
  for (const p of r.kept_linked) lines.push(`kept ${p}: a friction note links to it`);
  lines.push('never removed: state files, friction notes and what they link to, the dispatch log');
  return lines.join('\n') + '\n';
}

export function registerPrune(program: Command, { env, setCode }: CliContext): void {
  const cmd = program
    .command('prune')
    .description(
      "remove what the watchdog wrote and no longer needs: files of finished epics (watchdog.json, requests, acks, agent logs, markers), old hook activity, read positions and recovery checkpoints; never a state file, a friction note, the dispatch log or a running epic's requests",
    )
    .option('--older-than <duration>', 'only files not changed for this long: 90m, 12h, 30d, 2w', '30d')
    .option('--dry-run', 'list what would be removed; remove nothing');
  stateDirOption(cmd)
    .option('--json', 'print the report as JSON')
    .action(async (flags: { olderThan: string; dryRun?: boolean; stateDir?: string; json?: boolean }) => {
      const olderThanMs = parseDurationMs(flags.olderThan);
      if (olderThanMs === undefined)
        throw new InputError('bad_flag', `--older-than: expected a duration (90m, 12h, 30d, 2w), got ${JSON.stringify(flags.olderThan)}.`, {
          hint: 'e.g. --older-than 30d',
        });
      const paths = new StatePaths(existingStateDir(flags.stateDir, env.env, env.cwd));
      const report = await prune(paths, { nowMs: env.watchDeps.clock.nowMs(), olderThanMs, olderThan: flags.olderThan, isDryRun: Boolean(flags.dryRun) });
      env.output.out(flags.json ? toJson(report, 2) + '\n' : renderPrune(report));
      setCode(EXIT.ok);
    });
  teach(cmd, {
    examples: [
      ['dispatch-watchdog prune --dry-run', 'list what would go: files older than 30 days of finished epics, old activity and read positions'],
      ['dispatch-watchdog prune --older-than 2w', 'remove them, and say what was removed'],
    ],
    exitCodes: [
      ['ok', 'done (also when nothing was old enough)'],
      ['input', 'bad --older-than'],
      ['failure', 'a file could not be removed'],
    ],
  });
}
