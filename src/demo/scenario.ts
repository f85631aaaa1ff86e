// The demo's embedded default: one epic, three agents (steady, stalling, long Bash), one
// replacement, and the config that makes the whole job fit in about 30 seconds. Pure.
import { Timeline, type PlanStep } from './timeline.js';
import { checkpointRelPath } from '../files/paths.js';

export const DEMO_EPIC_ID = 'DEMO-1';

/**
 * Timings, chosen with wide margins for a loaded 2-core machine: healthy agents write a record at
 * least every 0.5 s against a 4 s window (8x), and the long Bash call is silent for 6 s against the
 * 12 s its open-call exemption allows (2x).
 */
export const DEMO_TIMING = {
  /** Base stall window (--timeout). */
  stallWindowSeconds: 4,
  /** Longest sleep between checks (--check-interval). */
  checkIntervalSeconds: 1,
  /** Grace after an open call's own timeout (exemptions.open_tool_grace_seconds). */
  openToolGraceSeconds: 4,
  /** SIGTERM → SIGKILL grace of the process adapter (agents.kill_grace_ms). */
  killGraceMs: 1000,
  /** How often the steady agents call a tool. */
  toolCadenceMs: 500,
  /** The long Bash call: its `timeout` and how long it really runs (silently). */
  bashTimeoutMs: 8000,
  bashRunsMs: 6000,
  /** The whole demo gives up (and fails) after this long. */
  giveUpMs: 40_000,
} as const;

export type AgentRole = 'healthy' | 'stalls' | 'long-bash' | 'replacement';

/** One agent of the wave, as the demo's orchestrator dispatches it. */
export interface DemoAgentSpec {
  taskId: string;
  ticketId: string;
  role: AgentRole;
  /** Short description for the table. */
  label: string;
  title: string;
  /** Row keys a real orchestrator might keep; the checkpoint reads `remaining_work`. */
  remainingWork?: string[];
  steps: PlanStep[];
}

const read = (file: string, lines: string, extra: Record<string, unknown> = {}) => ({
  name: 'Read',
  input: { file_path: file, ...extra },
  result: lines,
  toolUseResult: { type: 'text', file: { filePath: file, content: lines, numLines: lines.split('\n').length, startLine: 1, totalLines: 120 } },
});
const grep = (pattern: string, path: string, hits: string) => ({ name: 'Grep', input: { pattern, path, output_mode: 'content' }, result: hits });
const edit = (file: string, oldString: string, newString: string) => ({
  name: 'Edit',
  input: { file_path: file, old_string: oldString, new_string: newString },
  result: `The file ${file} has been updated.`,
});
const bash = (command: string, description: string, timeout: number, stdout: string, takesMs = 150) => ({
  name: 'Bash',
  input: { command, description, timeout },
  result: stdout,
  toolUseResult: { stdout, stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
  takesMs,
});

/** DEMO-101: reads, greps and edits its way through a ticket, a tool call every 0.5 s, for about 22 s. */
function healthySteps(repo: string): PlanStep[] {
  const t = new Timeline('Heal');
  t.prompt('Implement DEMO-101: paginate GET /invoices (cursor-based, page size 50).');
  t.say('I will look at the invoices route and its store first.');
  const files = ['src/invoices/routes.ts', 'src/invoices/store.ts', 'src/invoices/cursor.ts', 'test/invoices/routes.test.ts'];
  for (let round = 0; round < 11; round++) {
    const file = `${repo}/${files[round % files.length]}`;
    t.tool(
      read(file, `     1→export async function listInvoices(db, opts) {\n     2→  // page ${round + 1}`, { offset: 1 + round * 40, limit: 40 }),
      DEMO_TIMING.toolCadenceMs,
    );
    t.tool(grep(`cursor|pageSize|limit${round}`, `${repo}/src`, `src/invoices/store.ts:${30 + round}:  limit: opts.pageSize`), DEMO_TIMING.toolCadenceMs);
    t.tool(edit(file, `// page ${round + 1}`, `// page ${round + 1}: cursor handled`), DEMO_TIMING.toolCadenceMs);
    t.tool({ name: 'Glob', input: { pattern: `src/invoices/**/*${round}.ts` }, result: 'No files found' }, DEMO_TIMING.toolCadenceMs);
  }
  t.say('DEMO-101 is done: GET /invoices is paginated with a cursor and covered by tests.', 100);
  return t.exit(0).steps;
}

/** DEMO-102: four calls, then a sentence, then silence (the model stopped streaming): a stall. */
function stallingSteps(repo: string): PlanStep[] {
  const t = new Timeline('Stal');
  t.prompt('Implement DEMO-102: retry failed invoice fetches with exponential backoff.');
  t.say('Let me find where invoices are fetched.');
  t.tool(grep('fetchInvoice', `${repo}/src`, 'src/invoices/client.ts:12:export async function fetchInvoice(id) {'));
  t.tool(read(`${repo}/src/invoices/client.ts`, '    12→export async function fetchInvoice(id) {\n    13→  return http.get(`/invoices/${id}`);'));
  t.tool(read(`${repo}/src/http.ts`, '     1→export const http = createClient({ timeoutMs: 10_000 });'));
  t.tool(edit(`${repo}/src/invoices/client.ts`, 'return http.get(`/invoices/${id}`);', 'return withRetry(() => http.get(`/invoices/${id}`));'));
  // No "retry" or "rate limit" in its last words: those widen the window (the rate_limit exemption).
  t.say('Now I will add the backoff helper and its test.', 0);
  return t.hang().steps;
}

/** DEMO-103: opens a Bash call with a timeout of 8 s that runs 6 s without output, then finishes. */
function longBashSteps(repo: string): PlanStep[] {
  const t = new Timeline('Bash');
  t.prompt('Implement DEMO-103: fix the flaky checkout e2e test.');
  t.say('First I will reproduce the flake.');
  t.tool(read(`${repo}/test/e2e/checkout.spec.ts`, '    41→  await page.click("#pay");\n    42→  expect(await page.textContent(".total")).toBe("€12.00");'));
  t.tool(grep('waitFor|textContent', `${repo}/test/e2e`, 'test/e2e/checkout.spec.ts:42:  expect(await page.textContent(".total"))'));
  t.say('Running the checkout e2e suite; it takes a few seconds and prints only at the end.', 100);
  t.tool(
    bash(
      'npm run test:e2e -- checkout 2>&1 | tail -40',
      'Run the checkout e2e suite',
      DEMO_TIMING.bashTimeoutMs,
      '12 passing (5.8s)\n1 failing: checkout › shows the total (expected "€12.00", got "")',
      DEMO_TIMING.bashRunsMs,
    ),
    DEMO_TIMING.bashRunsMs + 200,
  );
  t.say('The total is read before the price request settles; waiting for it fixes the flake.', 300);
  t.tool(edit(`${repo}/test/e2e/checkout.spec.ts`, 'expect(await page.textContent(".total"))', 'await expect(page.locator(".total")).toHaveText("€12.00")'));
  t.tool(read(`${repo}/test/e2e/checkout.spec.ts`, '    42→  await expect(page.locator(".total")).toHaveText("€12.00");'));
  t.say('DEMO-103 is done: the checkout test waits for the total instead of reading it early.', 100);
  return t.exit(0).steps;
}

/** The replacement's last words: the demo checks its log for them. */
export const REPLACEMENT_DONE_TEXT = 'Recovery complete: the remaining DEMO-102 work is done.';

/** The replacement of DEMO-102: its prompt is the recovery prompt the watchdog wrote (prompt file). */
export function replacementSteps(repo: string): PlanStep[] {
  const t = new Timeline('Repl');
  t.prompt('(the recovery prompt file replaces this text)');
  t.say('Reading the checkpoint first; I will only do the remaining work.');
  t.tool(read(checkpointRelPath('DEMO-102', 1), 'remaining_work:\n  - Add the withRetry helper (exponential backoff)\n  - Test the retry path'));
  t.tool(read(`${repo}/src/invoices/client.ts`, '    13→  return withRetry(() => http.get(`/invoices/${id}`));', { offset: 1, limit: 30 }));
  t.tool({
    name: 'Write',
    input: { file_path: `${repo}/src/retry.ts`, content: 'export async function withRetry(fn, tries = 4) { /* 200ms, 400ms, 800ms */ }' },
    result: `File created successfully at: ${repo}/src/retry.ts`,
  });
  t.tool(edit(`${repo}/src/invoices/client.ts`, "import { http } from '../http';", "import { http } from '../http';\nimport { withRetry } from '../retry';"));
  t.tool({
    name: 'Write',
    input: { file_path: `${repo}/test/retry.test.ts`, content: "it('retries a 503 three times', async () => { /* … */ });" },
    result: `File created successfully at: ${repo}/test/retry.test.ts`,
  });
  t.tool(grep('withRetry', `${repo}/src`, 'src/retry.ts:1:export async function withRetry(fn, tries = 4) {'));
  t.tool(read(`${repo}/test/retry.test.ts`, "     1→it('retries a 503 three times', async () => { /* … */ });"));
  t.tool(edit(`${repo}/test/retry.test.ts`, '/* … */', 'expect(calls).toBe(4);'));
  t.say(REPLACEMENT_DONE_TEXT, 100);
  return t.exit(0).steps;
}

/** The wave the demo's orchestrator dispatches. */
export function demoAgents(repo: string): DemoAgentSpec[] {
  return [
    { taskId: 'DEMO-101', ticketId: 'DEMO-101', role: 'healthy', label: 'steady tool calls', title: 'Paginate GET /invoices', steps: healthySteps(repo) },
    {
      taskId: 'DEMO-102',
      ticketId: 'DEMO-102',
      role: 'stalls',
      label: 'stalls mid-task',
      title: 'Retry failed invoice fetches',
      remainingWork: ['Add the withRetry helper (exponential backoff) in src/retry.ts', 'Test the retry path in test/retry.test.ts'],
      steps: stallingSteps(repo),
    },
    {
      taskId: 'DEMO-103',
      ticketId: 'DEMO-103',
      role: 'long-bash',
      label: `silent Bash (timeout ${DEMO_TIMING.bashTimeoutMs / 1000} s)`,
      title: 'Fix the flaky checkout e2e test',
      steps: longBashSteps(repo),
    },
  ];
}

/** The task id of the stalled agent's replacement (attempt 1). */
export const STALLED_TASK_ID = 'DEMO-102';
export const REPLACEMENT_TASK_ID = 'DEMO-102-r1';

/** watchdog.config.yaml for the demo: the process adapter launches `node <script> <plan> {prompt_file}`. */
export function demoConfigYaml(nodePath: string, scriptPath: string, replacementPlanPath: string): string {
  const argv = [nodePath, scriptPath, replacementPlanPath, '{prompt_file}', '{recovery_task_id}'];
  return [
    '# dispatch-watchdog demo: short windows so the whole job fits in about 30 seconds.',
    `timeout_seconds: ${DEMO_TIMING.stallWindowSeconds}`,
    `check_interval_seconds: ${DEMO_TIMING.checkIntervalSeconds}`,
    'action: redispatch',
    'max_redispatches: 2',
    'exemptions:',
    `  open_tool_grace_seconds: ${DEMO_TIMING.openToolGraceSeconds}`,
    'agents:',
    '  adapter: process',
    `  kill_grace_ms: ${DEMO_TIMING.killGraceMs}`,
    `  redispatch_argv: [${argv.map((a) => JSON.stringify(a)).join(', ')}]`,
    '',
  ].join('\n');
}
