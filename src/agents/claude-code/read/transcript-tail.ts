// Tails Claude Code transcripts: per file, the bytes appended since the last read are parsed
// into a TranscriptState; positions persist in <stateDir>/observe/transcripts.json.
import { parseTranscriptBytes, parseTranscriptLine } from '../parse/parse-transcript.js';
import type { TailReader } from '../../../observe/read/tail-file.js';
import { TailStore } from '../../../observe/read/tail-store.js';
import { TailTracker } from '../../../observe/read/tail-tracker.js';
import { emptyTranscriptState, isTranscriptState, lacksTeamContext, type TranscriptState } from '../parse/transcript-state.js';
import { StatePaths } from '../../../files/paths.js';

/** A tracker of transcript files under a state dir `root`, reading through `reader`. */
export function createTranscriptTail(root: string, reader: TailReader, opts: { isPersistent: boolean }): TailTracker<TranscriptState> {
  const store = opts.isPersistent ? new TailStore(new StatePaths(root).observeFile('transcripts.json'), isTranscriptState) : undefined;
  return new TailTracker<TranscriptState>(
    reader,
    {
      empty: emptyTranscriptState,
      line: parseTranscriptLine,
      lineBytes: parseTranscriptBytes,
      skipped: (s) => void s.skippedLines++,
      // Lazy: a cold start reads a short tail and notes what it can vouch for (tail-context.ts).
      beginTail: (s, cutAt) => {
        s.tail = { from: cutAt, callsSinceFresh: 0 };
        s.isLazyTail = true;
      },
      hasContext: (s) => s.tail === undefined && !lacksTeamContext(s),
    },
    store,
  );
}
