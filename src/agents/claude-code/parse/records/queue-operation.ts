// `type:"queue-operation"` (input the human queued while the agent worked) and
// `type:"attachment"` (files, hook context and reminders attached to a turn): the harness's,
// not the agent's work. Pure.
import { isRec, NO_MARKS, type RecordFamily } from './family.js';
import { applyNotifications } from './tasks.js';

/** What a queued input is, in a few words: "a task notification (a1b2…)", or the prompt's head. */
function queuedWhat(content: unknown): string {
  const text = typeof content === 'string' ? content : '';
  const task = /<task-notification>[\s\S]*?<task-id>([\w-]+)<\/task-id>/.exec(text)?.[1];
  if (task) return `a task notification (${task})`;
  const head = text.replace(/\s+/g, ' ').trim().slice(0, 60);
  return head ? `a message ("${head}${text.length > 60 ? '…' : ''}")` : 'a message';
}

export const QUEUE_OPERATION: RecordFamily = {
  // Queued input is not the session's own activity: it neither names the session nor moves its time.
  isSession: false,
  isHarnessNote: false,
  actor: () => 'harness',
  marks: () => NO_MARKS,
  // It carries task notifications, though (not delivered yet: they do not end an interruption).
  apply: (s, rec, { atMs }) => {
    if (typeof rec.content === 'string') applyNotifications(s, rec.content, atMs);
    // Enqueued input waits until a dequeue (or a remove) consumes it; popAll/clear take all of it.
    if (rec.operation === 'enqueue') {
      if (s.queued) s.queued.count++;
      else s.queued = { sinceMs: atMs, count: 1, what: queuedWhat(rec.content) };
    } else if (typeof rec.operation === 'string' && s.queued) {
      if (--s.queued.count <= 0 || /all|clear/i.test(rec.operation)) s.queued = undefined;
    }
  },
};

/**
 * Attachments whose body this family never reads (it reads no attachment's body): the fast path
 * (skim-record.ts) folds them with the body cut out. Bulk only — a prompt snapshot, skill and
 * tool listings (4–56 KB each in 2.1.332). A family that starts reading an attachment's body
 * takes its type out of this list.
 */
export const SKIMMED_ATTACHMENTS: ReadonlySet<string> = new Set(['prompt_snapshot', 'skill_listing', 'agent_listing_delta', 'deferred_tools_delta']);

export const ATTACHMENT: RecordFamily = {
  isSession: true,
  isHarnessNote: false,
  actor: () => 'harness',
  marks: () => NO_MARKS,
  // A queued command absorbed mid-turn (2.1.259+: `attachment {type:"queued_command"}`) was consumed.
  apply: (s, rec) => {
    if (isRec(rec.attachment) && rec.attachment.type === 'queued_command') s.queued = undefined;
  },
};
