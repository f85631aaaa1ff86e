// Writes the friction notes exactly once (DESIGN §8, §9). A stall-escalation note is keyed by
// ticket and attempt through a marker line inside it, so a retry after a crash never writes a second.
//
// Naming: `friction/<date>-stall-escalation-<ticket>.md`. When that name is taken by a note for an
// earlier attempt (same ticket, same day), the new note goes to `...-<ticket>-attempt-<n>.md`.
// A suffixed file (not an appended section) keeps every write an atomic create-if-absent and
// never rewrites a file a human may already be editing.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { utcDate, msToIso } from '../../contracts/time.js';
import { ActionError } from '../../contracts/errors.js';
import { assertSafeId, type StatePaths } from '../../files/paths.js';
import { createFileExclusive } from '../../files/atomic-write.js';
import { safeText } from '../../present/safe-text.js';
import { frictionMarker, orphanMarker, renderFrictionNote, renderOrphanNote, type FrictionNoteInput, type OrphanAction } from './friction-render.js';

export * from './friction-render.js';
export { hypothesizeRootCause, type Hypothesis, type HypothesisKind } from './friction-hypothesis.js';

/** Where a note went, and whether this call wrote it (false: it already existed). */
export interface NoteWritten {
  path: string;
  written: boolean;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The existing stall-escalation note of this ticket and attempt, on any date; undefined if none. */
export async function findFrictionNote(paths: StatePaths, ticketId: string, attempts: number): Promise<string | undefined> {
  const name = new RegExp(`^\\d{4}-\\d{2}-\\d{2}-stall-escalation-${escapeRegExp(assertSafeId(ticketId, 'ticket id').toLowerCase())}(-attempt-\\d+)?\\.md$`);
  let entries: string[];
  try {
    entries = await fs.readdir(paths.frictionDir());
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const marker = frictionMarker(ticketId, attempts);
  for (const entry of entries.filter((e) => name.test(e)).sort()) {
    const file = path.join(paths.frictionDir(), entry);
    if (await containsMarker(file, marker)) return file;
  }
  return undefined;
}

async function containsMarker(file: string, marker: string): Promise<boolean> {
  try {
    return (await fs.readFile(file, 'utf8')).includes(marker);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/** Evidence paths under the state dir become relative to it, so the note's links work anywhere. */
function relativeEvidence(paths: StatePaths, input: FrictionNoteInput): FrictionNoteInput['evidencePaths'] {
  const rel = (p: string) => {
    if (!path.isAbsolute(p)) return p;
    const r = paths.relative(p);
    return r.startsWith('..') ? p : r.split(path.sep).join('/');
  };
  return { dispatchLogs: input.evidencePaths.dispatchLogs.map(rel), checkpoints: input.evidencePaths.checkpoints.map(rel) };
}

/** The path writeFrictionNote will use (or used), for the Linear comment written before the note. */
export async function frictionNotePathFor(paths: StatePaths, ticketId: string, attempts: number, nowMs: number): Promise<string> {
  const existing = await findFrictionNote(paths, ticketId, attempts);
  if (existing) return existing;
  const base = paths.frictionFile(utcDate(nowMs), ticketId);
  const isTaken = await fs.access(base).then(
    () => true,
    () => false,
  );
  return isTaken ? base.replace(/\.md$/, `-attempt-${attempts}.md`) : base;
}

/** Write the stall-escalation note once per ticket and attempt; an existing one is kept as it is. */
export async function writeFrictionNote(paths: StatePaths, input: FrictionNoteInput, opts: { nowMs: number }): Promise<NoteWritten> {
  const existing = await findFrictionNote(paths, input.ticketId, input.attempts);
  if (existing) return { path: existing, written: false };
  // The note quotes the agent (its last output, its last call): no secret, no terminal escape in it.
  const text = safeText(
    renderFrictionNote({ ...input, escalatedAt: input.escalatedAt ?? msToIso(opts.nowMs), evidencePaths: relativeEvidence(paths, input) }),
    { keepNewlines: true },
  );
  const marker = frictionMarker(input.ticketId, input.attempts);
  const base = paths.frictionFile(utcDate(opts.nowMs), input.ticketId);
  for (const file of [base, base.replace(/\.md$/, `-attempt-${input.attempts}.md`)]) {
    if (await createFileExclusive(file, text)) return { path: file, written: true };
    if (await containsMarker(file, marker)) return { path: file, written: false };
  }
  throw new ActionError(
    'action_refused',
    `${paths.relative(base)}: cannot write the friction note of ${input.ticketId} attempt ${input.attempts}: both file names are taken by other notes.`,
    {
      hint: `Move the files aside (they were not written by this escalation), then run \`dispatch-watchdog recover --epic-id ${input.actionKey?.split(':')[0] ?? '<epic id>'}\`.`,
    },
  );
}

/** `friction/<date>-orphaned-actions-<run>.md` for one start-up. */
export function orphanNotePath(paths: StatePaths, runId: string, nowMs: number): string {
  return path.join(paths.frictionDir(), `${utcDate(nowMs)}-orphaned-actions-${assertSafeId(runId, 'run id')}.md`);
}

/** Write one run's orphan note once; a second call for the same run keeps the first. */
export async function writeOrphanNote(
  paths: StatePaths,
  orphans: readonly OrphanAction[],
  opts: { runId: string; epicId?: string; nowMs: number },
): Promise<NoteWritten> {
  const file = orphanNotePath(paths, opts.runId, opts.nowMs);
  const text = renderOrphanNote(orphans, { runId: opts.runId, epicId: opts.epicId, detectedAt: msToIso(opts.nowMs) });
  if (await createFileExclusive(file, text)) return { path: file, written: true };
  if (await containsMarker(file, orphanMarker(opts.runId))) return { path: file, written: false };
  throw new ActionError('action_refused', `${paths.relative(file)}: exists but is not the orphan note of run ${opts.runId}.`, {
    hint: `Move the file aside, then run \`dispatch-watchdog recover --epic-id ${opts.epicId ?? '<epic id>'}\` again.`,
  });
}
