// `dispatch-watchdog friction`: a review of what the watchdog logged over a period, per ticket,
// with the friction notes it wrote. summarizeFriction is pure; reviewFriction reads the files.
import { readdir } from 'node:fs/promises';
import type { DispatchEvent } from '../contracts/events.js';
import { renderTable } from '../core/format.js';
import { readDispatchLog } from '../journal/dispatch-log.js';
import type { StatePaths } from '../journal/paths.js';

export interface TicketFriction {
  ticket_id: string;
  epics: string[];
  stalls: number;
  redispatches: number;
  cancels: number;
  escalations: number;
  failed_actions: number;
  stall_reasons: Record<string, number>;
  exemptions_seen: Record<string, number>;
  last_stall?: string;
}

export interface FrictionSummary {
  since: string;
  tickets: TicketFriction[];
  mass_stalls: number;
  input_errors: number;
  orphaned_actions: number;
  notes: string[];
}

export { parseSince } from '../core/period.js';

const bump = (o: Record<string, number>, k: string) => void (o[k] = (o[k] ?? 0) + 1);

/** Per-ticket counts of what happened since `sinceMs`, worst first. Pure. */
export function summarizeFriction(events: readonly DispatchEvent[], sinceMs: number, notes: string[]): FrictionSummary {
  const tickets = new Map<string, TicketFriction>();
  const ticket = (id: string, epic: string) => {
    let t = tickets.get(id);
    if (!t) tickets.set(id, (t = { ticket_id: id, epics: [], stalls: 0, redispatches: 0, cancels: 0, escalations: 0, failed_actions: 0, stall_reasons: {}, exemptions_seen: {} }));
    if (!t.epics.includes(epic)) t.epics.push(epic);
    return t;
  };
  const out: FrictionSummary = { since: new Date(sinceMs).toISOString(), tickets: [], mass_stalls: 0, input_errors: 0, orphaned_actions: 0, notes };
  for (const e of events) {
    if (Date.parse(e.timestamp_utc) < sinceMs) continue;
    switch (e.event) {
      case 'stall_detected': {
        const t = ticket(e.ticket_id, e.epic_id);
        t.stalls++;
        bump(t.stall_reasons, e.stall_reason);
        for (const x of e.exemptions ?? []) bump(t.exemptions_seen, x);
        t.last_stall = e.timestamp_utc;
        break;
      }
      case 'redispatch':
        ticket(e.ticket_id, e.epic_id).redispatches++;
        break;
      case 'agent_killed':
        if (e.step === 'cancel' || e.step === undefined) ticket(e.ticket_id, e.epic_id).cancels++;
        break;
      case 'escalated_to_blocked':
        if (!e.is_retry) ticket(e.ticket_id, e.epic_id).escalations++; // a retried tracker step is the same escalation
        break;
      case 'action_failed':
        ticket(e.ticket_id, e.epic_id).failed_actions++;
        break;
      case 'mass_stall':
        out.mass_stalls++;
        break;
      case 'input_error':
        out.input_errors++;
        break;
      case 'recovery_summary':
        out.orphaned_actions += e.orphan_count;
        break;
      default:
        break;
    }
  }
  out.tickets = [...tickets.values()].sort((a, b) => b.escalations - a.escalations || b.stalls - a.stalls || a.ticket_id.localeCompare(b.ticket_id));
  return out;
}

/** The review as a table. Pure. */
export function renderFriction(s: FrictionSummary): string {
  const rows = s.tickets.map((t) => [
    t.ticket_id,
    String(t.stalls),
    String(t.redispatches),
    String(t.cancels),
    t.escalations ? `yes (${t.escalations})` : '-',
    Object.entries(t.stall_reasons).map(([k, n]) => `${k}×${n}`).join(', ') || '-',
    t.last_stall ?? '-',
  ]);
  const head = `friction since ${s.since}: ${s.tickets.length} ticket(s) with trouble, ${s.mass_stalls} mass stall(s), ${s.orphaned_actions} orphaned action(s), ${s.input_errors} input error(s)\n`;
  const table = rows.length ? renderTable(['TICKET', 'STALLS', 'REDISPATCHED', 'CANCELLED', 'ESCALATED', 'STALL REASONS', 'LAST STALL'], rows) : 'no stalls in that period\n';
  const notes = s.notes.length ? `friction notes:\n${s.notes.map((n) => `  ${n}`).join('\n')}\n` : '';
  return head + table + notes;
}

/** Read every day's log and the friction notes dated since `sinceMs`. */
export async function reviewFriction(paths: StatePaths, sinceMs: number): Promise<FrictionSummary> {
  const log = await readDispatchLog(paths);
  const sinceDate = new Date(sinceMs).toISOString().slice(0, 10);
  const names = await readdir(paths.frictionDir()).catch(() => [] as string[]);
  const notes = names.filter((n) => n.endsWith('.md') && n.slice(0, 10) >= sinceDate).sort().map((n) => `friction/${n}`);
  return summarizeFriction(log.events, sinceMs, notes);
}
