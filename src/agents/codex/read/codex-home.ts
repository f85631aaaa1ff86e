// Where a Codex row's files are (reference §3, §4, §12.2): CODEX_HOME, the thread's rollout (the
// row's `transcript_path`, else the dated directories `sessions/YYYY/MM/DD/rollout-*-<thread>.jsonl`)
// and its writer lock. I/O (directory listings).
import { readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const DATED = /[/\\]sessions[/\\]\d{4}[/\\]\d{2}[/\\]\d{2}[/\\]rollout-[^/\\]+\.jsonl$/;

/** CODEX_HOME for a row: the one its rollout path lies in, else `codex_home` on the row, else $CODEX_HOME, else ~/.codex. */
/** A Codex rollout's file name (`rollout-<start>-<thread>.jsonl`), as opposed to a launched agent's --json stdout. */
export const isRolloutPath = (file: string | undefined): file is string => file !== undefined && /(^|[/\\])rollout-[^/\\]+\.jsonl$/.test(file);

export function codexHomeOf(transcriptPath: string | undefined, rowHome: unknown, env: NodeJS.ProcessEnv): string {
  if (transcriptPath && DATED.test(transcriptPath)) return path.resolve(transcriptPath, '..', '..', '..', '..', '..');
  if (typeof rowHome === 'string' && rowHome !== '') return path.resolve(rowHome);
  return env.CODEX_HOME ? path.resolve(env.CODEX_HOME) : path.join(env.HOME ?? os.homedir(), '.codex');
}

/** The thread's writer lock: held (flock) by its live owner, removed on a clean exit, left unheld by a kill. */
export const lockPathOf = (home: string, threadId: string) => path.join(home, 'thread-writer-locks', `${threadId}.lock`);

const list = (d: string) => {
  try {
    return readdirSync(d);
  } catch {
    return [];
  }
};

/** The rollout of `threadId` under `<home>/sessions`, newest day first; undefined when none is there yet. */
export function findRollout(home: string, threadId: string): string | undefined {
  const root = path.join(home, 'sessions');
  const desc = (xs: string[]) =>
    xs
      .filter((x) => /^\d+$/.test(x))
      .sort()
      .reverse();
  const tail = `-${threadId}.jsonl`;
  for (const y of desc(list(root))) {
    for (const m of desc(list(path.join(root, y)))) {
      for (const d of desc(list(path.join(root, y, m)))) {
        const dir = path.join(root, y, m, d);
        const hit = list(dir).find((f) => f.startsWith('rollout-') && f.endsWith(tail));
        if (hit) return path.join(dir, hit);
      }
    }
  }
  return undefined;
}
