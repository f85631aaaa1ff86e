// `type:"api-request"` (Claude Code 2.1.300+): one record per model request, in the main and the
// subagent transcripts, written as the request is sent. A request in flight: silence after it is
// the model's or the transport's, never a tool's. Two requests with no response between them are
// a retry: 2.1.332 writes `system/api_error` for the main session's retries only, so a
// subagent's backoff (a 429 with `retry-after: 40`: requests 43 s apart) is known from these
// alone, and widens the window like the main session's retry records. Pure.
import { NO_MARKS, type RecordFamily } from './family.js';

export const API_REQUEST: RecordFamily = {
  // The session's own activity (a request sent), but a harness note: it does not end a stretch of retries.
  isSession: true,
  isHarnessNote: true,
  actor: () => 'harness',
  marks: () => NO_MARKS,
  apply: (s, _rec, { atMs }) => {
    const prev = s.requestSentMs;
    if (prev !== undefined) s.apiRetry ??= { sinceMs: prev, attempt: 1 };
    s.requestSentMs = atMs ?? prev ?? 0;
  },
};
