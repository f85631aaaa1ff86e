// The ONE list of transcript record types we read and the ONE table of their families.
// Adding a record type: its name in RECORD_TYPES, then the compiler asks for its row in
// RECORD_FAMILIES; its family (flags, actor, marks, apply: family.ts RecordFamily) in a file of
// its own under records/. A new `system` subtype is a row in records/system.ts, a new progress
// kind a row in records/progress.ts. Record shapes: shared/reference/claude-code-surfaces.md §1.
import { API_REQUEST } from './api-request.js';
import { ASSISTANT } from './assistant.js';
import { NO_MARKS, rowOf, type RecordFamily } from './family.js';
import { PROGRESS } from './progress.js';
import { ATTACHMENT, QUEUE_OPERATION } from './queue-operation.js';
import { RESULT } from './result.js';
import { SYSTEM } from './system.js';
import { USER } from './user.js';

export const RECORD_TYPES = ['assistant', 'user', 'progress', 'system', 'attachment', 'result', 'queue-operation', 'api-request'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export const RECORD_FAMILIES: Readonly<Record<RecordType, RecordFamily>> = {
  assistant: ASSISTANT,
  user: USER,
  progress: PROGRESS,
  system: SYSTEM,
  attachment: ATTACHMENT,
  result: RESULT,
  'queue-operation': QUEUE_OPERATION,
  'api-request': API_REQUEST,
};

/**
 * A type we do not know (`summary`, `file-history-snapshot`, a future one): counted, never the
 * session's activity; like any record that is not a harness note, it ends a manual `/compact`.
 */
const UNKNOWN_RECORD: RecordFamily = {
  isSession: false,
  isHarnessNote: false,
  actor: () => 'harness',
  marks: () => NO_MARKS,
  apply: () => undefined,
};

/** The family of a record `type` (any value). */
export const familyOf = (type: unknown): RecordFamily => rowOf(RECORD_FAMILIES, type) ?? UNKNOWN_RECORD;
