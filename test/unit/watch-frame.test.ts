// Tables that fit: reasons cut in the status table (whole in --json), terminal detection, the frame's cells.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkWave } from '../../src/check-wave.js';
import { idleWindowCell, renderStatus } from '../../src/core/format.js';
import { changeLines, deadlineCell, exemptionWhy, fitTable, requestsByTask, taskMarks } from '../../src/core/watch-frame.js';
import { detectTerminal } from '../../src/deps.js';
import { REPO_ROOT } from '../helpers/cli.js';

async function exampleReport() {
  const r = await checkWave({
    stateDir: path.join(REPO_ROOT, '.onex_state.example'),
    epicId: 'PROJ-1000',
    nowMs: Date.parse('2026-04-02T10:10:00Z'),
    shouldReadClaudeCode: false,
  });
  return r.report;
}

describe('the idle / window cell', () => {
  it('a stall is strictly past its window: whole seconds equal to it read as over it', () => {
    expect(idleWindowCell(4, 4, true)).toBe('>4s / 4s');
    expect(idleWindowCell(120, 120, true)).toBe('>2m00s / 2m00s');
    expect(idleWindowCell(5, 4, true)).toBe('5s / 4s');
    expect(idleWindowCell(4, 4, false)).toBe('4s / 4s');
    expect(idleWindowCell(null, 4, true)).toBe('-');
  });
});

describe('status table', () => {
  it('cuts a 300-character reason (one line, ellipsis); the document keeps it whole', async () => {
    const doc = await exampleReport();
    const long = `status "${'y'.repeat(150)}\n${'z'.repeat(150)}" is not one we know`;
    doc.tasks[0]!.reason = long;
    const lines = renderStatus(doc).split('\n');
    const row = lines.find((l) => l.startsWith('task-1001'))!;
    expect(row).toMatch(/status "y+…$/);
    expect(row.length).toBeLessThan(180);
    expect(lines.length).toBe(renderStatus(doc).split('\n').length);
    expect(doc.tasks[0]!.reason).toBe(long);
    // On a known narrow terminal the reason gets what is left of the width (at least 20 characters).
    const narrow = renderStatus(doc, { columns: 80 })
      .split('\n')
      .find((l) => l.startsWith('task-1001'))!;
    expect(narrow).toMatch(/ status "y{10,}…$/);
    expect(narrow.length).toBeLessThan(row.length);
  });
});

describe('agent versions (issue 38)', () => {
  it('says which agent CLI versions the rows run, most rows first, and nothing when no row says', async () => {
    const doc = await exampleReport();
    expect(renderStatus(doc)).not.toContain('agent versions');
    doc.tasks[0]!.agent_version = '2.1.197';
    doc.tasks[1]!.agent_version = '2.1.332';
    doc.tasks[2]!.agent_version = '2.1.332';
    const lines = renderStatus(doc).split('\n');
    expect(lines[1]).toBe('agent versions: 2.1.332 (2 rows), 2.1.197 (1 row)');
    expect(lines[2]).toMatch(/^TASK/);
  });
});

describe('requests column', () => {
  it("lists each task's pending and unanswered requests", async () => {
    const doc = await exampleReport();
    const req = { answer_by: '2026-04-02T10:14:00Z', ticket_id: 'PROJ-1002', path: 'epics/PROJ-1000/requests/x.json' };
    doc.requests = [
      { ...req, key: 'a', kind: 'cancel', task_id: 'task-1002', status: 'unanswered' },
      { ...req, key: 'b', kind: 'redispatch', task_id: 'task-1002', status: 'pending' },
    ];
    expect([...requestsByTask(doc)]).toEqual([['task-1002', ['cancel (unanswered)', 'redispatch']]]);
  });
});

describe('terminal detection', () => {
  it.each([
    [{ isTTY: true, columns: 80 }, {}, true, true],
    [{ isTTY: true, columns: 80 }, { NO_COLOR: '1' }, true, false],
    [{ isTTY: true, columns: 80 }, { TERM: 'dumb' }, false, false],
    [{ isTTY: false }, {}, false, false],
  ])('%j with %j: tty %s, colour %s', (stream, env, isTty, hasColor) => {
    const t = detectTerminal(stream, env);
    expect([t.isTty, t.hasColor]).toEqual([isTty, hasColor]);
  });
});

describe('frame cells', () => {
  it('deadline, exemption reasons, and a table that drops columns before cutting rows', () => {
    const now = Date.parse('2026-04-02T10:00:00Z');
    expect(deadlineCell(now + 90_000, now)).toBe('10:01:30 (in 90s)');
    expect(deadlineCell(now - 1000, now)).toBe('09:59:59 (passed)');
    expect(exemptionWhy({ exemptions: ['open_tool_call', 'rate_limit'], last_tool: 'WebFetch' })).toBe(
      'open_tool_call: WebFetch call still open; rate_limit: backing off a rate limit',
    );
    const t = fitTable(['A', 'BBBB', 'C'], [['a1', 'b'.repeat(30), 'c'.repeat(40)]], 30, [1]);
    expect(t.kept).toEqual([0, 2]);
    expect(t.lines).toEqual(['A   C', `a1  ${'c'.repeat(25)}…`]);
  });
});

describe('what changed since the last check', () => {
  it('says completions and exemptions by task id, whether the rows kept their order or not', async () => {
    const prev = await exampleReport();
    const now = structuredClone(prev);
    const i = now.tasks.findIndex((t) => t.verdict === 'healthy');
    now.tasks[i] = { ...now.tasks[i]!, exemptions: ['rate_limit'] };
    const at = (nowMs: number) => ({ report: now, deadlines: new Map(), requests: new Map(), nowMs });
    const nowMs = Date.parse('2026-04-02T10:10:01Z');
    const marks = taskMarks(prev.tasks);
    const said = changeLines(marks, at(nowMs));
    expect(said).toEqual([expect.stringContaining(`${now.tasks[i]!.task_id} (${now.tasks[i]!.ticket_id}) exempt, window`)]);
    // The same change, the rows in another order: found by id, and nothing else is said.
    now.tasks.reverse();
    expect(changeLines(marks, at(nowMs))).toEqual(said);
    // Nothing changed: nothing said.
    expect(changeLines(marks, { ...at(nowMs), report: structuredClone(prev) })).toEqual([]);
    // The marks are written over in place, one object per task kept from check to check.
    const first = marks[0];
    expect(taskMarks(now.tasks, marks)).toBe(marks);
    expect(marks[0]).toBe(first);
    expect(marks.map((m) => m.task_id)).toEqual(now.tasks.map((t) => t.task_id));
    expect(changeLines(marks, at(nowMs))).toEqual([]);
  });
});
