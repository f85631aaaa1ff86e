// One turn of a Claude Code 2.1.332 subagent as it lands in its transcript: the record mix and
// sizes of a real 2.1.332 session recorded against the scripted model server (the suite's
// test/fixtures/real-2.1.332/ and docs/performance.md "a busy wave"): per model request an
// `api-request` (~1.3 KB) and an `api-request-blob` (1–8 KB), now and then an `api-request-shape`
// (19–38 KB, when the request's shape changes), the assistant's tool call, `tools-used`, the
// tool's result, an attachment or two (a 1 KB reminder; a 4 KB `prompt_snapshot` every four
// turns), `last-prompt` and `atis-latch`. About 11–12 KB a turn on average, 61 % of it the
// `api-request*` records, as measured. Their bulk is prose as in the real records (`prose`), so
// JSON.parse reads it at the real records' cost per MB, not a plain string's.
const pad = (n: number, seed: number) => {
  let s = '';
  let x = seed >>> 0 || 1;
  while (s.length < n) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    s += x.toString(36);
  }
  return s.slice(0, n);
};

/**
 * Text of `n` characters as the records' bulk really is: prose, lines of it, quoted words, and
 * in the system prompt's texts (`isWide`) a non-ASCII dash. JSON.parse reads such a string more
 * slowly than one of plain characters (the escapes, the two-byte string a non-ASCII character
 * makes): the real 2.1.332 records of the suite's fixtures parse at 2.3–2.4 ms per MB here and
 * these at 2.2, and the skim walks the records it skips at 0.55 and 0.6 ms per MB; `pad`'s plain
 * characters parsed at 0.6–1.0, which made parsing a check's appended lines cost half what real
 * records do (docs/performance.md, round fifteen). A quoted word now and then: the escaped quotes
 * are what the skim's walk pays for.
 */
const WORDS = ['the', 'agent', 'tool', 'file', 'must', 'user', 'run', 'before', 'tests', 'output', 'when', 'a', 'is', 'of', 'to', 'not'];
const prose = (n: number, seed: number, isWide = false) => {
  const parts: string[] = [];
  let len = 0;
  let x = seed >>> 0 || 1;
  let line = 0;
  while (len < n) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    const w = WORDS[x % WORDS.length]!;
    // A line break every ~70 characters, now and then a quoted word, in wide text a dash.
    const sep = line > 70 ? '\n' : isWide && x % 29 === 0 ? ' — ' : ' ';
    const word = x % 97 === 0 ? `"${w}"` : w;
    line = sep === '\n' ? 0 : line + word.length + 1;
    parts.push(sep, word);
    len += sep.length + word.length;
  }
  return parts.join('').slice(0, n);
};

/** A tool as a request's shape lists it: name, description, a JSON schema of its input. */
const shapeTool = (k: number, descBytes: number) => ({
  name: ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'Agent', 'WebFetch', 'TodoWrite', 'NotebookEdit', 'WebSearch', 'Skill'][k % 12]!,
  description: prose(descBytes, k + 11),
  input_schema: {
    type: 'object',
    properties: {
      command: { type: 'string', description: prose(120, k + 12) },
      timeout: { type: 'number', description: prose(60, k + 13) },
      run_in_background: { type: 'boolean', description: prose(80, k + 14) },
    },
    required: ['command'],
    additionalProperties: false,
    $schema: 'https://json-schema.org/draft/2020-12/schema',
  },
});

const hex = (i: number, n = 64) => pad(n, i * 7 + 3).replace(/[g-z]/g, (c) => String.fromCharCode(97 + (c.charCodeAt(0) % 6)));

/** The lines of turn `i` of agent `agent` in session `session`, stamped from `t` (ms) on. */
export function turn2332Lines(agent: string, session: string, i: number, t: number, cwd = '/work/repo'): string {
  return turn2332Writes(agent, session, i, t, cwd).join('');
}

/**
 * `turn2332Lines` as Claude Code 2.1.332 writes it: three appends, a few records each (under
 * strace, a real `-p` session wrote its transcript in about three `write()` calls a model turn:
 * the request's records; the answer with its tool call and result; `last-prompt` and
 * `atis-latch`). Each append is an inotify event for the watchdog.
 */
export function turn2332Writes(agent: string, session: string, i: number, t: number, cwd = '/work/repo'): string[] {
  const ts = (dt: number) => new Date(t + dt).toISOString();
  const base = { isSidechain: true, agentId: agent };
  const tail = { userType: 'external', entrypoint: 'sdk-cli', cwd, sessionId: session, version: '2.1.332', gitBranch: 'main' };
  const toolId = `toolu_${agent}_${i}`;
  const lines: unknown[] = [];
  if (i % 8 === 0) {
    lines.push({
      type: 'api-request-shape',
      sessionId: session,
      agentId: agent,
      shapeHash: hex(i),
      timestamp: ts(0),
      version: '2.1.332',
      // The system prompt's texts and the tools' list, about 19 or 38 KB in all.
      shape: {
        system: [
          { type: 'text', text: "You are a Claude agent, built on Anthropic's Claude Agent SDK." },
          { type: 'text', text: prose(i % 16 === 0 ? 22_000 : 8_000, i, true) },
        ],
        tools: Array.from({ length: 12 }, (_, k) => shapeTool(k + i, i % 16 === 0 ? 800 : 500)),
      },
    });
  }
  lines.push({
    type: 'api-request-blob',
    sessionId: session,
    agentId: agent,
    hash: hex(i + 1),
    message: { role: 'user', content: [{ type: 'text', text: prose(i % 5 === 0 ? 7_400 : 1_200, i + 2) }] },
  });
  lines.push({
    type: 'api-request',
    sessionId: session,
    agentId: agent,
    id: `req-${agent}-${i}`,
    timestamp: ts(5),
    version: '2.1.332',
    querySource: 'agent:builtin:general-purpose',
    shapeHash: hex(i),
    params: {
      model: 'claude-opus-5-5',
      betas: ['claude-code-20250219', 'interleaved-thinking-2025-05-14', 'context-management-2025-06-27'],
      max_tokens: 128000,
      thinking: { type: 'adaptive' },
      output_config: { effort: 'medium' },
    },
    thread: { type: 'none' },
    echoWireToolInputs: false,
    keep: 0,
    tail: [hex(i + 2), hex(i + 3)],
    requestDigest: hex(i + 4),
  });
  const requestRecords = lines.length;
  lines.push({
    parentUuid: `p-${agent}-${i}`,
    ...base,
    message: {
      id: `msg_${agent}_${i}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-5-5',
      content: [{ type: 'tool_use', id: toolId, name: 'Read', input: { file_path: `/work/repo/src/m${i}.ts` } }],
      stop_reason: 'tool_use',
      usage: { input_tokens: 1200 + i, output_tokens: 80, cache_read_input_tokens: 40000 },
    },
    apiBlockIndex: 0,
    requestId: `req_${hex(i + 5, 24)}`,
    requestRef: `req-${agent}-${i}`,
    requestedModel: 'claude-opus-5-5',
    type: 'assistant',
    uuid: `a-${agent}-${i}`,
    timestamp: ts(900),
    ...tail,
  });
  lines.push({ type: 'tools-used', tools: ['Read', 'Bash'], sessionId: session, agentId: agent });
  lines.push({
    parentUuid: `a-${agent}-${i}`,
    ...base,
    promptId: `prompt-${agent}`,
    type: 'user',
    message: { role: 'user', content: [{ tool_use_id: toolId, type: 'tool_result', content: prose(i % 3 === 0 ? 1_600 : 900, i + 6) }] },
    uuid: `u-${agent}-${i}`,
    timestamp: ts(1_000),
    sandboxed: false,
    sourceToolAssistantUUID: `a-${agent}-${i}`,
    ...tail,
  });
  lines.push({
    parentUuid: `u-${agent}-${i}`,
    ...base,
    attachment: { type: 'todo_reminder', content: [{ content: prose(600, i + 7), status: 'in_progress' }] },
    type: 'attachment',
    uuid: `r-${agent}-${i}`,
    timestamp: ts(1_010),
    ...tail,
  });
  if (i % 4 === 1) {
    lines.push({
      parentUuid: `r-${agent}-${i}`,
      ...base,
      attachment: { type: 'prompt_snapshot', system: prose(3_400, i + 8, true) },
      type: 'attachment',
      uuid: `s-${agent}-${i}`,
      timestamp: ts(1_020),
      ...tail,
    });
  }
  const answerRecords = lines.length;
  lines.push({ type: 'last-prompt', lastPrompt: 'implement the ticket', leafUuid: `u-${agent}-${i}`, sessionId: session, agentId: agent });
  lines.push({ type: 'atis-latch', atis: '', sessionId: session, agentId: agent });
  const text = (from: number, to: number) =>
    lines
      .slice(from, to)
      .map((l) => `${JSON.stringify(l)}\n`)
      .join('');
  return [text(0, requestRecords), text(requestRecords, answerRecords), text(answerRecords, lines.length)];
}
