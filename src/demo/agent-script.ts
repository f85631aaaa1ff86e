// The source of the demo's agent script, written into the demo's temp dir at run time (tsc compiles
// only .ts, so the script ships as text). It replays an AgentPlan (timeline.ts) in real time as
// Claude Code 2.1.39 subagent records (envelope and content blocks as in
// shared/fixtures/claude-code/transcript-v2.1.39-subagent-agent-a93ccab.jsonl), one whole line
// per write, to a transcript file or, like claude -p --output-format stream-json, to stdout
// (then ending with a result record).

/** Usage: `node agent.mjs <plan.json> [<prompt-file>]`. */
export const AGENT_SCRIPT = String.raw`// dispatch-watchdog demo agent: replays a plan of Claude-Code-format transcript records.
// Usage: node agent.mjs <plan.json> [<prompt-file>]
import { randomUUID } from 'node:crypto';
import { appendFileSync, readFileSync, writeSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const [planFile, promptFile] = process.argv.slice(2);
const plan = JSON.parse(readFileSync(planFile, 'utf8'));
const prompt = promptFile ? readFileSync(promptFile, 'utf8') : undefined;
const write = plan.out === '-' ? (line) => writeSync(1, line) : (line) => appendFileSync(plan.out, line);
const model = 'claude-sonnet-4-5-20250929';
const t0 = performance.now();
let parentUuid = null;
let turn = 0;
let lastText = '';
const callers = new Map();

function emit(body) {
  const uuid = randomUUID();
  const rec = {
    parentUuid, isSidechain: true, userType: 'external', cwd: plan.cwd, sessionId: plan.sessionId,
    version: '2.1.39', gitBranch: plan.gitBranch, agentId: plan.agentId, ...body, uuid, timestamp: new Date().toISOString(),
  };
  write(JSON.stringify(rec) + '\n');
  parentUuid = uuid;
  return uuid;
}

function assistant(block) {
  return emit({
    message: {
      model, id: 'msg_demo' + plan.agentId + String(turn).padStart(4, '0'), type: 'message', role: 'assistant', content: [block],
      stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 24, cache_read_input_tokens: 18050 },
    },
    requestId: 'req_demo' + plan.agentId + String(turn).padStart(4, '0'),
    type: 'assistant',
  });
}

function apply(step) {
  switch (step.kind) {
    case 'prompt':
      return emit({ type: 'user', message: { role: 'user', content: prompt ?? step.text } });
    case 'text':
      turn++;
      lastText = step.text;
      return assistant({ type: 'text', text: step.text });
    case 'call':
      turn++;
      callers.set(step.id, assistant({ type: 'tool_use', id: step.id, name: step.name, input: step.input, caller: { type: 'direct' } }));
      return;
    case 'result':
      return emit({
        type: 'user',
        message: { role: 'user', content: [{ tool_use_id: step.id, type: 'tool_result', content: step.content, is_error: false }] },
        ...(step.toolUseResult ? { toolUseResult: step.toolUseResult } : {}),
        sourceToolAssistantUUID: callers.get(step.id),
      });
  }
}

let next = 0;
function tick() {
  while (next < plan.steps.length) {
    const step = plan.steps[next];
    const waitMs = t0 + step.atMs - performance.now();
    if (waitMs > 0) {
      setTimeout(tick, waitMs);
      return;
    }
    next++;
    if (step.kind === 'exit') {
      // claude -p --output-format stream-json ends its output with a result record.
      if (plan.out === '-' && step.code === 0) {
        write(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, duration_ms: Math.round(performance.now() - t0), num_turns: turn, result: lastText, session_id: plan.sessionId }) + '\n');
      }
      process.exit(step.code);
    }
    if (step.kind === 'hang') {
      setInterval(() => {}, 60_000); // alive, silent: what a stalled agent looks like from outside
      return;
    }
    apply(step);
  }
}
tick();
`;
