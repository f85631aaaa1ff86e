// Agent-team members a lead spawned: the messages that show them at work, idle or shut down,
// and the lead's own messages that wake them. Pure.
import { trackTask, type TranscriptState } from '../transcript-state.js';
import { isRec, str, type Rec } from './family.js';

/** A teammate spawn's result text (2.1.x: "Spawned successfully.\nagent_id: scaffolder@canvas-build\n…"). */
export const TEAMMATE_SPAWN = /^\s*Spawned successfully\.[\s\S]*?\bagent_id:\s*(\S+)/;

/** A message from a teammate, delivered to the lead as user text (`teammate_id` is the short name, or `system`). */
const TEAMMATE_MESSAGE = /<teammate-message\s+teammate_id="([^"]+)"[^>]*>([\s\S]*?)<\/teammate-message>/g;

/** The tracked teammate `name` (short, or `<name>@<team>`). */
const teammateNamed = (s: TranscriptState, name: string) => s.tasks.find((t) => t.kind === 'teammate' && (t.id === name || t.id.startsWith(`${name}@`)));

function setTeammate(s: TranscriptState, name: string | undefined, status: string, atMs: number | undefined): void {
  const t = name === undefined ? undefined : teammateNamed(s, name);
  if (t) trackTask(s, { id: t.id, kind: 'teammate', status, atMs });
}

/**
 * Apply every `<teammate-message>` in `text` to the teammates this lead spawned: a
 * `shutdown_approved` (or the system's `teammate_terminated`, "X has shut down.") ends one, an
 * `idle_notification` makes it idle (its turn ended: it waits for a message), anything else
 * shows it at work. Names the lead never spawned (a teammate's own transcript hears from
 * `team-lead`) are not tracked.
 */
export function applyTeammateMessages(s: TranscriptState, text: string, atMs: number | undefined): void {
  for (const m of text.matchAll(TEAMMATE_MESSAGE)) {
    const from = m[1]!;
    const body = m[2]!.trim();
    let msg: Rec | undefined;
    try {
      const parsed: unknown = body.startsWith('{') ? JSON.parse(body) : undefined;
      msg = isRec(parsed) ? parsed : undefined;
    } catch {
      msg = undefined;
    }
    const type = str(msg?.type);
    const sender = str(msg?.from) ?? from;
    if (type === 'teammate_terminated') setTeammate(s, /^\s*(\S+) has shut down/.exec(str(msg?.message) ?? '')?.[1], 'terminated', atMs);
    else if (type === 'shutdown_approved') setTeammate(s, sender, 'shutdown', atMs);
    else if (type === 'idle_notification') setTeammate(s, sender, 'idle', atMs);
    else setTeammate(s, from, 'running', atMs);
  }
}

/**
 * The lead writes to a teammate (a `SendMessage` call): anything but a shutdown request or answer
 * wakes an idle one (`recipient`/`to`; `*` or a `broadcast` writes to all).
 */
export function applySendMessage(s: TranscriptState, input: Rec, atMs: number | undefined): void {
  const message = isRec(input.message) ? input.message : undefined;
  const type = str(input.type) ?? str(message?.type);
  if (type?.startsWith('shutdown_')) return;
  const to = str(input.recipient) ?? str(input.to);
  const all = type === 'broadcast' || to === '*';
  for (const t of s.tasks) {
    if (t.kind === 'teammate' && t.status === 'idle' && (all || (to !== undefined && (t.id === to || t.id.startsWith(`${to}@`)))))
      trackTask(s, { id: t.id, kind: 'teammate', status: 'running', atMs });
  }
}
