// What one hook call does: read the payload from stdin, append its activity line to
// <stateDir>/activity/<agent_id or session_id>.ndjson, print nothing, resolve 0. This is all the
// fast entry (hook-entry.ts) loads, on every tool call: node's fs and path and three small
// modules, nothing else (no zod, commander, yaml or Linear, no crypto; a test checks), with
// synchronous file calls and no import.meta, so the same source also builds as CommonJS.
import { statSync } from 'node:fs';
import path from 'node:path';
import { appendLineSync } from '../files/append-line-sync.js';
import { buildHookLine } from '../agents/claude-code/parse/hook-line.js';
import { readStdin, readStdinFd, salvagePayload } from './hook-stdin.js';
import { activityFileOf } from '../files/activity-path.js';

export interface HookResult {
  isWritten: boolean;
  file?: string;
  /** Why nothing was written (garbage input, an unsafe id, no state dir…). */
  reason?: string;
}

/** Append the activity line of a parsed hook payload. Never throws. */
export async function runHookPayload(payload: unknown, opts: { stateDir: string; nowMs: number }): Promise<HookResult> {
  try {
    const built = buildHookLine(payload, opts.nowMs);
    if (!built) return { isWritten: false, reason: 'not a hook payload with hook_event_name and a safe agent_id or session_id' };
    const root = path.resolve(opts.stateDir);
    // Never create the state dir itself: with the ./.onex_state default that would litter every
    // project the agent works in. Only its activity/ subdirectory is created.
    const st = statSync(root, { throwIfNoEntry: false });
    if (!st?.isDirectory()) return { isWritten: false, reason: `state dir ${root} does not exist` };
    const file = activityFileOf(root, built.id);
    // One synchronous write(), no fsync: losing the last event on a power cut is fine; making the
    // agent wait is not. No directory under root (activity/) may be a symlink out of the state dir.
    appendLineSync(file, JSON.stringify(built.line), root);
    return { isWritten: true, file };
  } catch (e) {
    return { isWritten: false, reason: e instanceof Error ? e.message : String(e) };
  }
}

/** Parse a hook's stdin text and append its activity line. Never throws. */
export async function runHook(stdinText: string, opts: { stateDir: string; nowMs: number }): Promise<HookResult> {
  let payload: unknown;
  try {
    payload = JSON.parse(stdinText);
  } catch {
    return { isWritten: false, reason: 'stdin is not JSON' };
  }
  return runHookPayload(payload, opts);
}

/** The state dir: --state-dir > $ONEX_STATE_DIR > ./.onex_state. */
export function resolveHookStateDir(argv: readonly string[], env: NodeJS.ProcessEnv): string {
  const i = argv.indexOf('--state-dir');
  const eq = argv.find((a) => a.startsWith('--state-dir='));
  const flag = eq ? eq.slice('--state-dir='.length) : i >= 0 ? argv[i + 1] : undefined;
  return path.resolve(flag || env.ONEX_STATE_DIR || '.onex_state');
}

/**
 * Handle one hook call: read the payload from `stdin` (a stream, or a file descriptor read
 * directly: the fast entry passes 0) and append its line. Prints nothing; always resolves 0.
 * `onStdinLeftOpen` runs after the line is handled when a read of the descriptor is still
 * pending after the timeout.
 */
export async function hookRun(
  argv: readonly string[],
  stdin: NodeJS.ReadableStream | number,
  env: NodeJS.ProcessEnv,
  opts: { nowMs?: () => number; stdinTimeoutMs?: number; onStdinLeftOpen?: () => void } = {},
): Promise<number> {
  try {
    const stateDir = resolveHookStateDir(argv, env);
    const timeoutMs = opts.stdinTimeoutMs ?? 2000;
    const input = typeof stdin === 'number' ? await readStdinFd(stdin, timeoutMs, () => process.stdin) : await readStdin(stdin, timeoutMs);
    const nowMs = (opts.nowMs ?? Date.now)();
    if (input.isCut) await runHookPayload(salvagePayload(input.text, input.tail), { stateDir, nowMs });
    else if ('payload' in input) await runHookPayload(input.payload, { stateDir, nowMs });
    else await runHook(input.text, { stateDir, nowMs });
    // Timed out on a descriptor whose read is still pending (a writer that never closed stdin
    // and never sent a whole payload): the caller must not wait for it.
    if (typeof stdin === 'number' && !input.isEnded) opts.onStdinLeftOpen?.();
  } catch {
    // A hook must never fail the agent.
  }
  return 0;
}
