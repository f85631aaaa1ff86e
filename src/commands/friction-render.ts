import type { FrictionReview } from '../contracts/friction-review.js';
import { cut, renderTable } from '../core/format.js';

const join = (o: Record<string, number>) =>
  Object.entries(o)
    .map(([k, n]) => `${k}×${n}`)
    .join(', ') || '-';

const pct = (r: FrictionReview['lines'], k: 'corrupt' | 'invalid' | 'foreign') => {
  const first = r[`${k}_first`];
  return `${r[k]} ${k}${first ? ` (first ${first.file}:${first.line})` : ''}`;
};

/** The review as text: what to look at first, then the tables. Pure. */
export function renderFriction(s: FrictionReview): string {
  const scope = s.epic_id ? `epic ${s.epic_id}` : `${s.epics.length} epic(s)`;
  const out = [
    `friction since ${s.since} (${scope}): ${s.tickets.length} ticket(s) with trouble, ${s.mass_stalls} mass stall(s), ${s.orphaned_actions} orphaned action(s), ${s.input_errors} input error(s), ${s.nudges.sent} nudge(s) sent (${s.nudges.worked} worked)`,
    `dispatch log: ${s.days_read.length} day(s) read${s.days_read.length ? ` (${s.days_read[0]} to ${s.days_read.at(-1)})` : ''}; lines skipped: ${pct(s.lines, 'corrupt')}, ${pct(s.lines, 'invalid')}, ${pct(s.lines, 'foreign')}`,
    '',
  ];
  if (s.tickets.length === 0) out.push('no stalls in that period', '');
  else {
    out.push('look at first:');
    for (const t of s.tickets.slice(0, 10)) {
      out.push(
        `${String(t.rank).padStart(3)}. ${t.ticket_id} (${t.epics.length ? `epic ${t.epics.join(', ')}` : 'no epic: seed-shaped log lines'}): ${t.why_first}`,
      );
      if (t.hypothesis) out.push(`     hypothesis${t.hypothesis_source === 'stall_pattern' ? ' (from the stall pattern)' : ''}: ${cut(t.hypothesis, 240)}`);
      if (t.recommended_action) out.push(`     action: ${cut(t.recommended_action, 240)}`);
      if (t.note) out.push(`     note: ${t.note}`);
      for (const cmd of t.timeline) out.push(`     see it: ${cmd}`);
    }
    if (s.tickets.length > 10) out.push(`     … ${s.tickets.length - 10} more in the table below`);
    out.push('');
    const rows = s.tickets.map((t) => [
      String(t.rank),
      t.ticket_id,
      t.epics.join(',') || '-',
      String(t.stalls),
      String(t.redispatches),
      String(t.cancels),
      t.escalations ? `yes (${t.escalations})` : '-',
      join(t.stall_reasons),
      join(t.exemptions_seen),
      t.last_stall ?? '-',
    ]);
    out.push(renderTable(['#', 'TICKET', 'EPIC', 'STALLS', 'REDISPATCHED', 'CANCELLED', 'ESCALATED', 'STALL REASONS', 'EXEMPTIONS SEEN', 'LAST STALL'], rows));
  }
  if (s.epics.length > 0) {
    const rows = s.epics.map((e) => [
      e.epic_id,
      String(e.tickets),
      String(e.stalls),
      String(e.redispatches),
      String(e.escalations),
      String(e.mass_stalls),
      String(e.input_errors),
    ]);
    out.push('per epic:', renderTable(['EPIC', 'TICKETS', 'STALLS', 'REDISPATCHED', 'ESCALATED', 'MASS STALLS', 'INPUT ERRORS'], rows));
  }
  if (s.notes.length) out.push('friction notes:', ...s.notes.map((n) => `  ${n}`), '');
  return out.join('\n').replace(/\n+$/, '') + '\n';
}
