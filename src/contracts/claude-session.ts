// Claude Code's own `<config dir>/sessions/<pid>.json` (2.1.x; read only, never written by us):
// which process runs a session. A loose object: Claude Code adds fields. Pure.
import * as z from 'zod';

/** `{pid, sessionId, cwd, startedAt, procStart, version, …}` as 2.1.197 writes it (reference/claude-code-2.1.197.md). */
export const ClaudeSessionFileSchema = z.looseObject({
  pid: z.number().int().positive(),
  sessionId: z.string().min(1),
  cwd: z.string().optional(),
});
export type ClaudeSessionFile = z.infer<typeof ClaudeSessionFileSchema>;
