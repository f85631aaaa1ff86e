// Claude Code's own `<config dir>/sessions/<pid>.json` (2.1.x; read only, never written by us):
// which process runs a session. A loose object: Claude Code adds fields. Pure.
import * as z from 'zod';

/** `{pid, sessionId, cwd, startedAt, procStart, version, …}` as 2.1.197 writes it (reference/claude-code-2.1.197.md). */
export const ClaudeSessionFileSchema = z.looseObject({
  pid: z.number().int().positive(),
  sessionId: z.string().min(1),
  cwd: z.string().optional(),
  /** The Claude Code that runs the session ("2.1.332"). */
  version: z.string().optional(),
  /** The process's start in clock ticks since boot (/proc/<pid>/stat field 22), as a string: a recycled pid has another. */
  procStart: z.union([z.string(), z.number()]).optional(),
  /** When the process started, in ms since the epoch. */
  startedAt: z.number().optional(),
});
export type ClaudeSessionFile = z.infer<typeof ClaudeSessionFileSchema>;
