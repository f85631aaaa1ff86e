// `dispatch-watchdog friction`: a review of what the watchdog logged over a period, per ticket and
// per epic, ranked by what to look at first, with the hypothesis and recommended action of the
// friction notes. summarizeFriction and renderFriction are pure; reviewFriction reads the files
// of the days the period covers, and nothing older.
import { createReadStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { DispatchEvent } from '../contracts/events.js';
import type { FrictionReview, FrictionTicketEntry } from '../contracts/friction-review.js';
import { utcDate } from '../contracts/time.js';
import { hypothesizeRootCause, type TicketStanding } from '../act/friction/friction-hypothesis.js';
import { stallRecordFromEvent, type StallRecord } from '../act/friction/stall-history.js';
import { parseLogLine } from '../journal/dispatch-log.js';
import type { StatePaths } from '../files/paths.js';
import { parseFrictionNote, type NoteFacts } from './friction-note.js';

export { parseSince } from '../core/period.js';

export type LineCounts = FrictionReview['lines'];

/** A stall logged this close to a mass_stall line listing its task belongs to that mass stall. @defaultValue 60000 */
const MASS_STALL_MATCH_MS = 60_000;

const bump = <K extends string>(o: Partial<Record<K, number>>, k: K) => void (o[k] = (o[k] ?? 0) + 1);

type Acc = Omit<FrictionTicketEntry, 'rank' | 'why_first' | 'hypothesis' | 'recommended_action' | 'hypothesis_source' | 'note' | 'timeline'> & {
  records: StallRecord[];
  /** The last instance a redispatch handed the ticket to. */
  replacement?: string;
};

/** Why a ticket ranks where it does, and its score (higher first). */
function triage(t: Acc): { score: number; why: string } {
  if (t.escalations > 0) {
    const where =
      t.tracker === 'skipped'
        ? 'escalated (tracker skipped: not moved to Blocked; move it by hand)'
        : t.tracker === 'failed'
          ? 'escalated (moving it to Blocked FAILED)'
          : 'escalated to Blocked';
    return { score: 1e6 + t.stalls, why: `${where} after ${t.stalls} stall(s): needs a person` };
  }
  if (t.failed_actions > 0)
    return { score: 1e5 + t.failed_actions, why: `${t.failed_actions} recovery action(s) failed: check the agent and the tracker by hand` };
  if (t.redispatches > 0) return { score: 1e3 * t.redispatches + t.stalls, why: `redispatched ${t.redispatches} time(s): close to escalation` };
  return { score: t.stalls, why: `${t.stalls} stall(s), recovered or reported only` };
}

/** Per-ticket and per-epic counts of what happened since `sinceMs`, ranked. Pure. */
export function summarizeFriction(
  events: readonly DispatchEvent[],
  opts: { sinceMs: number; untilMs: number; epicId?: string; notes: readonly NoteFacts[]; daysRead: string[]; lines: LineCounts },
): FrictionReview {
  const tickets = new Map<string, Acc>();
  const epics = new Map<string, FrictionReview['epics'][number]>();
  // A seed-shaped line (the seed skill's own, no epic_id) belongs to no epic: it counts for its
  // ticket, never as an epic row of its own (issue 33).
  const noEpic = { epic_id: '', tickets: 0, stalls: 0, redispatches: 0, escalations: 0, mass_stalls: 0, input_errors: 0 };
  const epic = (id: string) => {
    if (id === '') return noEpic;
    let e = epics.get(id);
    if (!e) epics.set(id, (e = { epic_id: id, tickets: 0, stalls: 0, redispatches: 0, escalations: 0, mass_stalls: 0, input_errors: 0 }));
    return e;
  };
  const ticket = (id: string, epicId: string) => {
    let t = tickets.get(id);
    if (!t) {
      tickets.set(
        id,
        (t = {
          ticket_id: id,
          epics: [],
          stalls: 0,
          redispatches: 0,
          cancels: 0,
          escalations: 0,
          failed_actions: 0,
          tracker: null,
          stall_reasons: {},
          exemptions_seen: {},
          last_stall: null,
          records: [],
        }),
      );
    }
    if (epicId !== '' && !t.epics.includes(epicId)) t.epics.push(epicId);
    return t;
  };
  // The seed logs agent_killed both for a cancel and before a redispatch: a kill its redispatch follows is the redispatch's.
  const seedKills = new Map<string, number>();
  let massStalls = 0;
  let inputErrors = 0;
  let orphaned = 0;
  // A nudge worked when its agent is next seen healthy, or its row ended, before a reconcile or a stall of it.
  const nudged = new Set<string>();
  let nudgesSent = 0;
  let nudgesWorked = 0;
  // A stall the breaker listed with much of the wave (same epic, within a minute) is a mass stall's.
  const massAt = events.filter((e): e is Extract<DispatchEvent, { event: 'mass_stall' }> => e.event === 'mass_stall');
  const inMassStall = (epicId: string, taskId: string, atMs: number) =>
    massAt.some((m) => m.epic_id === epicId && m.task_ids.includes(taskId) && Math.abs(Date.parse(m.timestamp_utc) - atMs) <= MASS_STALL_MATCH_MS);
  for (const e of events) {
    if (Date.parse(e.timestamp_utc) < opts.sinceMs) continue;
    if (opts.epicId !== undefined && e.epic_id !== opts.epicId) continue;
    switch (e.event) {
      case 'stall_detected': {
        nudged.delete(`${e.epic_id}:${e.task_id}`);
        const t = ticket(e.ticket_id, e.epic_id);
        t.stalls++;
        epic(e.epic_id).stalls++;
        bump(t.stall_reasons, e.stall_reason);
        for (const x of e.exemptions ?? []) bump(t.exemptions_seen, x);
        t.last_stall = e.timestamp_utc;
        t.records.push({ ...stallRecordFromEvent(e), ...(inMassStall(e.epic_id, e.task_id, Date.parse(e.timestamp_utc)) ? { isMassStall: true } : {}) });
        break;
      }
      case 'redispatch': {
        const t = ticket(e.ticket_id, e.epic_id);
        if (e.epic_id === '' && (seedKills.get(e.ticket_id) ?? 0) > 0) seedKills.set(e.ticket_id, seedKills.get(e.ticket_id)! - 1);
        t.redispatches++;
        t.replacement = e.recovery_task_id;
        epic(e.epic_id).redispatches++;
        break;
      }
      case 'agent_killed':
        if (e.epic_id === '' && e.step === undefined) {
          ticket(e.ticket_id, e.epic_id);
          seedKills.set(e.ticket_id, (seedKills.get(e.ticket_id) ?? 0) + 1);
        } else if (e.step === 'cancel' || e.step === undefined) ticket(e.ticket_id, e.epic_id).cancels++;
        break;
      case 'escalated_to_blocked': {
        const t = ticket(e.ticket_id, e.epic_id);
        t.tracker = e.tracker ?? 'skipped'; // a retry's outcome is the latest word
        if (e.is_retry) break; // a retried tracker step is the same escalation
        t.escalations++;
        epic(e.epic_id).escalations++;
        break;
      }
      case 'action_failed':
        ticket(e.ticket_id, e.epic_id).failed_actions++;
        break;
      case 'mass_stall':
        massStalls++;
        epic(e.epic_id).mass_stalls++;
        break;
      case 'input_error':
        inputErrors++;
        epic(e.epic_id).input_errors++;
        break;
      case 'recovery_summary':
        orphaned += e.orphan_count;
        break;
      case 'nudge_sent':
        nudgesSent++;
        nudged.add(`${e.epic_id}:${e.task_id}`);
        break;
      case 'healthy':
        if (nudged.delete(`${e.epic_id}:${e.task_id}`)) nudgesWorked++;
        break;
      case 'request_answered':
        // The nudged row ended (the agent said it was done, its owner recorded it), or its agent went on.
        if (e.kind === 'nudge' && (e.how === 'terminal' || e.how === 'resolved') && nudged.delete(`${e.epic_id}:${e.task_id}`)) nudgesWorked++;
        break;
      case 'reconcile_requested':
        nudged.delete(`${e.epic_id}:${e.task_id}`);
        break;
      default:
        break;
    }
  }
  for (const [id, n] of seedKills) tickets.get(id)!.cancels += n;
  for (const t of tickets.values()) for (const id of t.epics) epic(id).tickets++;
  const notes = opts.notes.filter((n) => opts.epicId === undefined || n.epicId === undefined || n.epicId === opts.epicId);
  const ranked = [...tickets.values()]
    .map((t) => ({ t, ...triage(t) }))
    .sort((a, b) => b.score - a.score || (b.t.last_stall ?? '').localeCompare(a.t.last_stall ?? '') || a.t.ticket_id.localeCompare(b.t.ticket_id));
  return {
    since: new Date(opts.sinceMs).toISOString(),
    until: new Date(opts.untilMs).toISOString(),
    epic_id: opts.epicId ?? null,
    days_read: opts.daysRead,
    tickets: ranked.map(({ t, why }, i) => {
      const { records, replacement, ...counts } = t;
      const note = [...notes].reverse().find((n) => n.ticketId?.toLowerCase() === t.ticket_id.toLowerCase());
      const standing: TicketStanding =
        t.escalations === 0
          ? { state: 'recovered', ...(replacement ? { replacement } : {}) }
          : t.tracker === 'skipped'
            ? { state: 'tracker_skipped' }
            : { state: 'blocked' };
      const computed = records.length > 0 ? hypothesizeRootCause(records, t.ticket_id, standing) : undefined;
      // A note is written at escalation: it speaks for an escalated ticket, never for a recovered one.
      const fromNote = note?.hypothesis !== undefined && t.escalations > 0;
      return {
        rank: i + 1,
        ...counts,
        why_first: why,
        hypothesis: (fromNote ? note!.hypothesis : computed?.text) ?? null,
        recommended_action: (fromNote ? note!.action : computed?.action) ?? null,
        hypothesis_source: fromNote ? 'note' : computed ? 'stall_pattern' : null,
        note: note?.path ?? null,
        timeline: t.escalations > 0 ? t.epics.map((id) => `dispatch-watchdog timeline --epic-id ${id} --svg ${id.toLowerCase()}-timeline.svg`) : [],
      };
    }),
    epics: [...epics.values()].sort((a, b) => b.escalations - a.escalations || b.stalls - a.stalls || a.epic_id.localeCompare(b.epic_id)),
    mass_stalls: massStalls,
    input_errors: inputErrors,
    orphaned_actions: orphaned,
    nudges: { sent: nudgesSent, worked: nudgesWorked },
    notes: notes.map((n) => n.path),
    lines: opts.lines,
  };
}

/** Read one day's log: our events, and counts of the lines that are not. A torn last line is skipped silently. */
async function readDay(file: string, rel: string, events: DispatchEvent[], lines: LineCounts): Promise<void> {
  const stat = await fs.stat(file);
  if (stat.size === 0) return;
  const rl = createInterface({ input: createReadStream(file, { encoding: 'utf8', end: stat.size - 1 }), crlfDelay: Infinity });
  let n = 0;
  let pending: string | undefined;
  const take = (line: string, at: number) => {
    if (line.trim() === '') return;
    const r = parseLogLine(line);
    if (r.ok) return void events.push(r.event);
    const kind = r.message === undefined ? 'foreign' : r.message.startsWith('not valid JSON') ? 'corrupt' : 'invalid';
    lines[kind]++;
    lines[`${kind}_first`] ??= { file: rel, line: at };
  };
  for await (const line of rl) {
    if (pending !== undefined) take(pending, n);
    n++;
    pending = line;
  }
  const h = await fs.open(file, 'r');
  try {
    const b = Buffer.alloc(1);
    await h.read(b, 0, 1, stat.size - 1);
    if (pending !== undefined && b[0] === 0x0a) take(pending, n);
  } finally {
    await h.close();
  }
}

/** Read the days of the dispatch log and the friction notes the period covers, then summarize. */
export async function reviewFriction(paths: StatePaths, opts: { sinceMs: number; nowMs: number; epicId?: string }): Promise<FrictionReview> {
  const since = utcDate(opts.sinceMs);
  const dir = paths.dispatchLogDir();
  const days = (await fs.readdir(dir).catch(() => [] as string[])).filter((n) => /^\d{4}-\d{2}-\d{2}\.ndjson$/.test(n) && n.slice(0, 10) >= since).sort();
  const events: DispatchEvent[] = [];
  const lines: LineCounts = { corrupt: 0, corrupt_first: null, invalid: 0, invalid_first: null, foreign: 0, foreign_first: null };
  for (const name of days) await readDay(path.join(dir, name), paths.relative(path.join(dir, name)), events, lines);
  const names = (await fs.readdir(paths.frictionDir()).catch(() => [] as string[])).filter((n) => n.endsWith('.md') && n.slice(0, 10) >= since).sort();
  const notes: NoteFacts[] = [];
  for (const n of names) {
    const file = path.join(paths.frictionDir(), n);
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    // A note from the first day of a period that starts mid-day counts when it was written in the period.
    const at = /^Escalated at (\S+)\.$/m.exec(text)?.[1] ?? /At start-up \((\S+)\)/.exec(text)?.[1];
    if (at && Date.parse(at) < opts.sinceMs) continue;
    notes.push(parseFrictionNote(text, paths.relative(file)));
  }
  return summarizeFriction(events, {
    sinceMs: opts.sinceMs,
    untilMs: opts.nowMs,
    epicId: opts.epicId,
    notes,
    daysRead: days.map((d) => d.slice(0, 10)),
    lines,
  });
}
