// `type:"api-request"` (Claude Code 2.1.300+): one record per model request, in the main and the
// subagent transcripts, written as the request is sent. A request in flight: silence after it is
// the model's or the transport's, never a tool's. A second request with no response since the
// first is a resend, and the records do not say why: a 429 backoff (2.1.332 writes
// `system/api_error` for the main session's retries only) or Claude Code's own byte/stream-idle
// watchdog dropping a frozen stream. So it is activity (the agent is alive and asking again), never
// an announced backoff; the gap before it is kept: in a subagent, the next resend of a backoff is
// due within about twice that gap (parse-transcript.ts `apiResend`, the `api_resend` exemption),
// and a stall after that is the stream's (`frozen_stream`). Pure.
import { NO_MARKS, type RecordFamily } from './family.js';

export const API_REQUEST: RecordFamily = {
  // The session's own activity (a request sent), but a harness note: it does not end a stretch of retries.
  isSession: true,
  isHarnessNote: true,
  actor: () => 'harness',
  marks: () => NO_MARKS,
  apply: (s, _rec, { atMs }) => {
    const prev = s.requestSentMs;
    if (prev !== undefined && atMs !== undefined && atMs >= prev) s.resend = { count: (s.resend?.count ?? 0) + 1, gapMs: atMs - prev };
    s.requestSentMs = atMs ?? s.requestSentMs ?? 0;
  },
};
