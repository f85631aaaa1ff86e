// `type:"queue-operation"` (input the human queued while the agent worked) and
// `type:"attachment"` (files, hook context and reminders attached to a turn): the harness's,
// not the agent's work. Pure.
import { NO_MARKS, type RecordFamily } from './family.js';
import { applyNotifications } from './tasks.js';

export const QUEUE_OPERATION: RecordFamily = {
  // Queued input is not the session's own activity: it neither names the session nor moves its time.
  isSession: false,
  isHarnessNote: false,
  actor: () => 'harness',
  marks: () => NO_MARKS,
  // It carries task notifications, though (not delivered yet: they do not end an interruption).
  apply: (s, rec, { atMs }) => {
    if (typeof rec.content === 'string') applyNotifications(s, rec.content, atMs);
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
  apply: () => undefined,
};
