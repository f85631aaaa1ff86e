// A lost completion wake (issue 38; anthropics/claude-code #88001, #92952, #96170): a background
// subagent finished (its transcript ends with its final answer, nothing open), and the lead whose
// turn ended to wait for it was never woken (no completion notification, queued or delivered, in
// its transcript). 2.1.332 could not be made to lose a wake offline, so the rule is covered by a
// real 2.1.332 session (test/fixtures/real-2.1.332/bg-agent-completes/) cut where the wake would
// begin: the lead's transcript up to its first turn's end, before the notification's enqueue.
// Judged by the CLI at fixed moments (--now) through the real observer: the lead is healthy up to
// the window after the child's final answer, then `stalled` with `wake_lost` within window + 1 s,
// and not deferred to the child's own row (that row is finished: nothing would ever act). The whole
// session (the healthy twin: the wake lands) is never stalled.
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/real-2.1.332/bg-agent-completes');
const SESSION = 'e8dc0af3-2fa2-44d0-b470-3cd05d6f3cc5';
const CHILD = 'ae233bc2c30b10333';
const EPIC = 'E-WAKE';
const WINDOW_S = 30;

const leadLines = () =>
  readFileSync(path.join(FIXTURE, `${SESSION}.jsonl`), 'utf8')
    .trim()
    .split('\n');
const childLines = () =>
  readFileSync(path.join(FIXTURE, SESSION, 'subagents', `agent-${CHILD}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);
/** The child's final answer: its last assistant record. */
const childDoneMs = () => Date.parse(childLines().findLast((r) => r.type === 'assistant')!.timestamp);

/** A Claude config dir holding the session, the lead's transcript as `lead` lines. */
function claudeDir(lead: string[]): string {
  const dir = tempDir();
  const project = path.join(dir, 'projects', '-tmp-wake');
  mkdirSync(project, { recursive: true });
  writeFileSync(path.join(project, `${SESSION}.jsonl`), `${lead.join('\n')}\n`);
  cpSync(path.join(FIXTURE, SESSION), path.join(project, SESSION), { recursive: true });
  return dir;
}

/** The lead up to its first turn's end (`stop_hook_summary`): before the notification's enqueue. */
function cutBeforeWake(): string[] {
  const lines = leadLines();
  const enqueue = lines.findIndex((l) => l.includes('"operation":"enqueue"') && l.includes('task-notification'));
  expect(enqueue).toBeGreaterThan(0);
  return lines.slice(0, enqueue);
}

async function judgeAt(claude: string, atMs: number, rows: Record<string, unknown>[]) {
  const stateDir = tempDir();
  writeWave(stateDir, EPIC, new Date(Date.parse(childLines()[0]!.timestamp) - 2000).toISOString(), rows as never);
  const r = await runCli(
    ['--epic-id', EPIC, '--state-dir', stateDir, '--action', 'report', '--json', '--timeout', String(WINDOW_S), '--now', new Date(atMs).toISOString()],
    {
      env: { CLAUDE_CONFIG_DIR: claude },
    },
  );
  const doc = JSON.parse(r.stdout) as { tasks: Record<string, any>[] };
  return Object.fromEntries(doc.tasks.map((t) => [t.task_id, t]));
}

const LEAD_ROW = { task_id: 'lead', ticket_id: 'P-0', status: 'in_progress', session_id: SESSION };
const CHILD_ROW = { task_id: 'sub', ticket_id: 'P-1', status: 'in_progress', agent_id: CHILD, session_id: SESSION };

describe.skipIf(!existsSync(FIXTURE))('a lost completion wake (recorded 2.1.332 lines)', () => {
  it('the lead whose finished child never woke it is healthy within the window after the finish, stalled (wake_lost) within window + 1 s', async () => {
    const claude = claudeDir(cutBeforeWake());
    const done = childDoneMs();
    const before = await judgeAt(claude, done + WINDOW_S * 1000 - 1000, [LEAD_ROW]);
    expect(before.lead, JSON.stringify(before.lead)).toMatchObject({ verdict: 'healthy' });
    const after = await judgeAt(claude, done + WINDOW_S * 1000 + 1000, [LEAD_ROW]);
    expect(after.lead, JSON.stringify(after.lead)).toMatchObject({ verdict: 'stalled' });
    expect(after.lead.reason).toMatch(new RegExp(`lost completion wake: background subagent ${CHILD} finished \\d+s ago`));
  });

  it("is not deferred to the child's own row: that row is finished, and nothing would act on it", async () => {
    const claude = claudeDir(cutBeforeWake());
    const at = childDoneMs() + WINDOW_S * 1000 + 1000;
    const t = await judgeAt(claude, at, [LEAD_ROW, CHILD_ROW]);
    expect(t.lead, JSON.stringify(t.lead)).toMatchObject({ verdict: 'stalled' });
    expect(t.lead.reason).toContain('lost completion wake');
    expect(t.sub.verdict).not.toBe('stalled');
  });

  it('the healthy twin: the wake lands, the lead answers and finishes; never stalled', async () => {
    const claude = claudeDir(leadLines());
    for (const dt of [WINDOW_S * 1000 - 1000, WINDOW_S * 1000 + 1000, 10 * WINDOW_S * 1000]) {
      const t = await judgeAt(claude, childDoneMs() + dt, [LEAD_ROW]);
      expect(t.lead.verdict, JSON.stringify(t.lead)).not.toBe('stalled');
    }
  });
});
