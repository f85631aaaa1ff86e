// `type:"result"`: the last line of a stream-json `claude -p` run (`subtype` `success` or an
// `error_*`, `is_error`, the final `result` text). Pure.
import { excerpt } from '../transcript-state.js';
import { NO_MARKS, str, type RecordFamily } from './family.js';

export const RESULT: RecordFamily = {
  isSession: true,
  isHarnessNote: false,
  actor: () => 'harness',
  marks: () => NO_MARKS,
  apply: (s, rec, { atMs }) => {
    s.result = { subtype: str(rec.subtype), atMs, isError: rec.is_error === true };
    if (typeof rec.result === 'string' && rec.result.trim() !== '') s.lastOutput = excerpt(rec.result);
  },
};
