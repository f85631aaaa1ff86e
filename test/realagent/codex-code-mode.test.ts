// Code mode on a real `codex exec --json` 0.171.0 session (issue 35): with a model from the bundled
// catalog (`gpt-6.2-sol`) Codex offers no exec_command tool; the model writes JavaScript for the
// freeform `exec` tool, and the rollout holds only a `custom_tool_call` whose `input` is the script,
// then `wait {cell_id}` polls once the script yields ("Script running with cell ID 1"). The command
// is a string literal inside the script: read from there, it is a shell call, and one waiting on CI
// is CI polling, through the script and its wait polls. Window 5 s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodexObserver } from '../../src/agents/codex/read/codex-observer.js';
import { normalizeTask } from '../../src/contracts/state-file.js';
import { assess, type Verdict } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import { codexSkip, startCodex, until } from '../helpers/codex-session.js';
import { call, execScript, say, startResponsesServer, type ResponsesServer } from '../helpers/responses-server.js';

const policy = { ...DEFAULT_POLICY, baseTimeoutMs: 5_000 };

describe.skipIf(codexSkip !== undefined)(`Codex code mode on a real session (skipped: ${codexSkip ?? 'no'})`, () => {
  let server: ResponsesServer;
  beforeAll(async () => (server = await startResponsesServer()));
  afterAll(() => server.close());

  it('a script that waits on CI is a shell call polling CI, through its yield and its wait polls', async () => {
    // `gh` is not installed here: the command fails at once and `sleep 8` stands in for the wait; its shape is what counts.
    const js =
      '// @exec: {"yield_time_ms": 2000}\nconst r = await tools.exec_command({cmd: "gh pr checks 7 --watch 2>/dev/null || sleep 8", yield_time_ms: 30000});\ntext(r.output);';
    server.script('CX-CODE', [
      { items: [execScript(js)] },
      { items: [call('wait', { cell_id: '1', yield_time_ms: 30_000 })] },
      { items: [say('checks done')] },
    ]);
    const s = startCodex({ server, prompt: 'CX-CODE wait for CI', model: 'gpt-6.2-sol' });
    const thread = await s.threadId;
    await until(() => s.rolloutPath(), 'the rollout');
    const task = normalizeTask(
      { ticket_id: 'CX-C', status: 'in_progress', agent: 'codex', session_id: thread, pid: s.pid, codex_home: s.codexHome, output_path: s.outputPath } as never,
      Date.now(),
    );
    const observer = createCodexObserver({ env: {} });
    const seen: Verdict[] = [];
    let done = false;
    void s.exited.then(() => (done = true));
    while (!done) {
      const now = Date.now();
      seen.push(assess(task, mergeObservations([{ source: 'row' }, ...(await observer.observe(task, now))]), policy, now));
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await s.exited).code).toBe(0);
    // It really ran in code mode: a custom_tool_call exec, then a wait on its cell.
    const names = s.rollout().map((r) => r.payload?.name);
    expect(names).toContain('exec');
    expect(names).not.toContain('exec_command');
    const during = seen.filter((v) => v.kind !== 'inconsistent');
    expect(during.filter((v) => v.kind === 'stalled').map((v) => v.reason)).toEqual([]);
    for (const tool of ['exec', 'wait']) {
      const v = during.find((x) => x.lastTool === tool && x.isLastToolOpen);
      expect(v, `a verdict with the ${tool} call open`).toBeDefined();
      expect(v!.exemptions).toContain('ci_polling');
    }
  });
});
