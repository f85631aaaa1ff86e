// The programmatic API: `import { … } from 'dispatch-watchdog'`. The zod schema and type of every
// file format the watchdog reads or writes, their parsers, the error family, and checkWave.
export { checkWave, type CheckWaveOptions, type WaveCheck } from './check-wave.js';

export {
  StateFileSchema,
  TaskRowSchema,
  parseStateFile,
  classifyStatus,
  type StateFile,
  type TaskRow,
  type Task,
  type Wave,
  type StatusClass,
} from './contracts/state-file.js';
export { ConfigSchema, parseConfig, type WatchdogConfig } from './contracts/config.js';
export { DEFAULTS } from './contracts/defaults.js';
// ACTIONS and EXEMPTIONS are the names the API was first published with.
export {
  VERDICT_KINDS,
  EXEMPTION_NAMES,
  EXEMPTION_NAMES as EXEMPTIONS,
  ACTION_KINDS,
  STRATEGIES,
  STRATEGIES as ACTIONS,
  ADAPTERS,
  type VerdictKind,
  type ExemptionName,
  type ActionKind,
  type Strategy,
  type AdapterName,
} from './contracts/vocabulary.js';
export { WatchdogJsonSchema, WatchdogJsonReadSchema, parseWatchdogJson, type WatchdogJson } from './contracts/watchdog-json.js';
export { FrictionReviewSchema, type FrictionReview } from './contracts/friction-review.js';
export { DispatchEventSchema, type DispatchEvent, type EventName, type EventOf } from './contracts/events.js';
export { CheckpointSchema, parseCheckpoint, type Checkpoint } from './contracts/checkpoint.js';
export {
  RequestSchema,
  EscalationNoticeSchema,
  REQUEST_KINDS,
  ANSWER_HOWS,
  type Request,
  type Request as MailboxRequest,
  type EscalationNotice,
  type RequestKind,
  type AnswerHow,
} from './contracts/request.js';
export { NextDocSchema, NEXT_EXIT, NEXT_REASONS, type NextDoc, type NextReason } from './contracts/next.js';
export { SAFE_ID_PATTERN, isSafeId, recoveryTaskId } from './contracts/ids.js';
export type { ParseResult } from './contracts/parse-yaml.js';
export { WatchdogError, InputError, ActionError, InternalError, type ErrorCode, type ErrorLocation } from './contracts/errors.js';
export type { Verdict } from './core/assess.js';
export type { StallReason } from './contracts/vocabulary.js';
export { parseLogLine } from './journal/dispatch-log.js';
export { StatePaths } from './files/paths.js';
