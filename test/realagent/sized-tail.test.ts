// The cold tail sized in records (issue 37, tail-context.ts `sizedTailBytes`) on the real thing: a
// real Claude Code session of many turns (2.1.332 and 2.1.197) against the scripted model server, its last Bash
// call held open. A cold check reads the end of its real transcript (a 16 KB tail holds too few of
// its messages: ~6 KB of tool output a turn, and on 2.1.332 a request record and its blob per model
// request and now and then an `api-request-shape` of 20–40 KB), and
// must judge exactly as a read of every byte: in-process at several moments, and through the CLI.
// After the session ends, a cold start and the loop agree at every record of the whole transcript.
import { mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Task } from '../../src/contracts/state-file.js';
import { assess, type Verdict } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { StatePaths } from '../../src/files/paths.js';
import { mergeObservations } from '../../src/observe/parse/observation-merge.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { createClaudeObserver } from '../../src/agents/claude-code/read/claude-observer.js';
import type { TailOptions } from '../../src/observe/read/tail-file.js';
import { ALL_VERSIONS, describeVersions, startClaude } from '../helpers/claude-session.js';
import { runCli, until } from '../helpers/cli.js';
import { bash, startModelServer, text, type ModelServer } from '../helpers/model-server.js';
import { expectColdAgreesWithLoop } from '../helpers/replay-agreement.js';
import { writeWave } from '../helpers/state.js';
import { tempDir } from '../helpers/temp-dir.js';

let server: ModelServer;
beforeAll(async () => void (server = await startModelServer()));
afterAll(() => server?.close());

const STEPS = 24;
/** The short tail and the wide one after it: what a cold read that widened would read. */
const WIDE = 16 * 1024 + 256 * 1024;
const show = (v: Verdict) => `${v.kind}/${v.stallReason ?? '-'}/${v.effectiveTimeoutMs}/${v.deadlineMs ?? '-'}/${v.lastTool ?? '-'}/${v.lastProgressMs ?? '-'}`;

describeVersions(ALL_VERSIONS, `a real session of ${STEPS + 1} Bash turns`, (version) => {
  it('a cold check reads a tail sized in records and judges as a read of every byte; so does the CLI', { timeout: 240_000 }, async () => {
    const marker = `SIZEDTAIL-${version}`;
    const gate = tempDir();
    // Each turn prints about 6 KB, as a build or a test run does: a 16 KB tail holds two or three messages.
    const steps = Array.from({ length: STEPS }, (_, i) => ({ blocks: [text(`Step ${i + 1}.`), bash(`seq -f 'step ${i + 1} line %g' 1 300`)] }));
    server.script(marker, [
      ...steps,
      { blocks: [text('Building.'), bash(`while [ ! -e ${gate}/go ]; do sleep 0.1; done; echo built`)] },
      { blocks: [text('All done: built.')] },
    ]);
    const s = startClaude({ server, prompt: `${marker}: build the project step by step`, version });
    const isGateOpen = () => s.transcript().some((r) => r.type === 'assistant' && JSON.stringify(r.message?.content ?? '').includes(`${gate}/go`));
    await until(isGateOpen, 180_000, 'the gated Bash call in the transcript');
    const file = s.transcriptPath;
    const size = statSync(file).size;
    const task: Task = {
      taskId: 't1',
      ticketId: 'P-1',
      status: 'in_progress',
      statusClass: 'in_flight',
      dispatchedAtMs: Date.now() - 60_000,
      sessionId: s.sessionId,
      transcriptPath: file,
    };
    const judge = async (tail: Partial<TailOptions>, nowMs: number) => {
      const o = createClaudeObserver({
        paths: new StatePaths(path.join(tempDir(), 'state')),
        claudeConfigDir: s.claudeDir,
        env: {},
        isPersistent: false,
        tail,
      });
      const v = assess(task, mergeObservations([observeRow(task), ...(await o.observe(task, nowMs))], CLAUDE_LENS), DEFAULT_POLICY, nowMs);
      return { v: show(v), kind: v.kind, bytes: o.stats().bytesRead };
    };
    const nowMs = Date.now();
    for (const ahead of [0, 60_000, 100_000, 200_000]) {
      // Every byte there was when it read: the real CLI may still append a record (a loaded machine).
      const atRead = statSync(file).size;
      const every = await judge({ tailBytes: 1 << 30, lazyTailBytes: 1 << 30 }, nowMs + ahead);
      const cold = await judge({}, nowMs + ahead);
      expect(cold.v, `+${ahead / 1000} s`).toBe(every.v);
      expect(every.bytes).toBeGreaterThanOrEqual(atRead);
      expect(every.bytes).toBeLessThanOrEqual(statSync(file).size);
      if (ahead === 0) {
        // The open call: healthy, from less than the file, and more than the short tail (the rung the test is about).
        expect(cold.kind).toBe('healthy');
        expect(cold.bytes, `a cold read of ${size} bytes`).toBeLessThan(size);
        expect(cold.bytes, 'read again past the 16 KB tail').toBeGreaterThan(16 * 1024);
        // Sized in records (~96 KB of 2.1.332's, ~56 KB of 2.1.197's), not widened to 256 KB: the wide tail would read 272 KB.
        expect(size).toBeGreaterThan(WIDE);
        expect(cold.bytes, 'never widened to the 256 KB tail').toBeLessThan(WIDE);
      }
    }
    // The CLI's cold first check of the same wave says so too.
    const stateDir = tempDir();
    mkdirSync(stateDir, { recursive: true });
    writeWave(stateDir, 'E-ST', new Date(nowMs - 60_000).toISOString(), [{ task_id: 't1', ticket_id: 'P-1', status: 'in_progress', session_id: s.sessionId }]);
    const r = await runCli(['--epic-id', 'E-ST', '--state-dir', stateDir, '--action', 'report', '--json', '--once'], {
      env: { CLAUDE_CONFIG_DIR: s.claudeDir },
    });
    expect(JSON.parse(r.stdout).tasks[0], r.stdout).toMatchObject({ verdict: 'healthy', last_tool: 'Bash' });
    mkdirSync(`${gate}/go`);
    expect(await s.exited).toEqual({ code: 0, signal: null });
    // The whole transcript, record by record: a cold start with the default tails and the loop agree.
    expect(await expectColdAgreesWithLoop(path.dirname(file), path.basename(file), {})).toBeGreaterThan(4 * 2 * STEPS);
  });
});
