// A friction note's facts (act/friction/ writes them): its ticket, the hypothesis and the action it
// recommends, read back for the review. Pure. Split out of commands/friction-review.ts.

/** What a friction note says, as far as the review needs it. */
export interface NoteFacts {
  /** State-dir relative path. */
  path: string;
  ticketId?: string;
  epicId?: string;
  hypothesis?: string;
  action?: string;
}

/** The section of a markdown note under `## title`, as one line. */
function section(text: string, title: string): string | undefined {
  const m = new RegExp(`^## ${title}\\n([\\s\\S]*?)(?=^## |$(?![\\s\\S]))`, 'm').exec(text);
  const body = m?.[1]?.trim();
  return body ? body.replace(/\s+/g, ' ') : undefined;
}

/** The facts of one friction note (stall escalation or orphaned actions). Pure. */
export function parseFrictionNote(text: string, relPath: string): NoteFacts {
  const ticketId = /^# Agent Stall Escalation: (\S+)/m.exec(text)?.[1];
  const key = /Idempotency key: `([^`:]+):/.exec(text)?.[1];
  const orphanEpic = /actions? of epic (\S+?) had started/.exec(text)?.[1];
  return {
    path: relPath,
    ticketId,
    epicId: key ?? orphanEpic,
    hypothesis: section(text, 'Root Cause Hypothesis'),
    action: section(text, 'Recommended Action'),
  };
}
