// <stateDir>/observe/transcripts.json and observe/hooks.json: where each transcript or activity file
// was read up to, and what its parser remembered (observe/read/tail-store.ts). Derived data: a line
// that does not match is skipped and costs one cold read of that file, never correctness. Pure.
// The file is a header line, then one entry line per save of a file (the last line for a path wins).
import * as z from 'zod';

/** Where a file was read up to, and the identity it had then (a rotated or truncated file starts over). */
export const TailCursorSchema = z.looseObject({
  dev: z.number(),
  ino: z.number(),
  offset: z.number().min(0).describe('Bytes consumed.'),
  lineNo: z.number().optional().describe('Line number of the next line, when counting from byte 0.'),
  skipFirst: z.boolean().optional().describe('Still dropping the cut first line of a tail start.'),
  size: z.number(),
  mtimeMs: z.number(),
});

// The parser states are the parsers' own (agents/claude-code/parse/transcript-state.ts, parse-hook-activity.ts);
// the store checks what tells a state of this version from an older or foreign one.
const CallList = z.array(z.looseObject({ name: z.string() }));

/** What the transcript parser remembers (TranscriptState). */
export const TranscriptStateSchema = z.looseObject({
  version: z.literal(1),
  recent: CallList,
  open: CallList,
  tasks: z.array(z.looseObject({ id: z.string() })),
  records: z.number(),
});

/** What the hook-activity parser remembers (HookState). */
export const HookStateSchema = z.looseObject({
  version: z.literal(1),
  kind: z.literal('hooks'),
  recent: CallList,
  open: CallList,
  closedIds: z.array(z.string()),
});

export const STORE_HEADER = { version: 2 } as const;

/** One saved file: its path, cursor, parser state and when it was last used. */
export const storeEntrySchema = <S extends z.ZodType>(state: S) => z.looseObject({ path: z.string(), cursor: TailCursorSchema, state, usedAtMs: z.number() });

export const ObserveStoreLineSchema = z
  .union([z.strictObject({ version: z.literal(STORE_HEADER.version) }), storeEntrySchema(z.union([TranscriptStateSchema, HookStateSchema]))])
  .meta({
    title: 'ObserveStoreLine',
    description: 'One line of observe/transcripts.json or observe/hooks.json: the header {"version":2}, then one entry per saved file.',
  });

/**
 * <stateDir>/observe/prefix-ids.json: the ids each parent transcript names in the bytes before
 * the tail it was read from lazily (agents/claude-code/read/prefix-ids.ts), so a restart need not scan them
 * again. Derived data: a missing or corrupt file costs one scan per parent, never correctness.
 */
export const PrefixIdsFileSchema = z
  .looseObject({
    version: z.literal(1),
    files: z.record(
      z.string(),
      z.looseObject({
        dev: z.number(),
        ino: z.number(),
        from: z.number().min(0).describe('Byte offset the tail began at: the ids are those of the bytes before it (back to the read-back bound).'),
        ids: z.array(z.string()),
      }),
    ),
  })
  .meta({
    title: 'PrefixIdsFile',
    description: 'observe/prefix-ids.json: the task and agent ids the unread prefix of each lazily read parent transcript names.',
  });
