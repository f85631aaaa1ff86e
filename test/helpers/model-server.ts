// A scripted stand-in for the Anthropic Messages API on 127.0.0.1, for running the real
// `claude` binary offline (what 2.1.197 sends and expects: ../shared/reference/claude-code-2.1.197.md).
//
//   const server = await startModelServer();            // port 0; one per test file (beforeAll), afterAll(() => server.close())
//   server.script('LEAD-MARK', [                          // an agent: its first user message contains the marker
//     { blocks: [bash('sleep 3; echo done')] },           // turn 0 (no assistant message yet): a Bash tool_use
//     { blocks: [text('finished')] },                     // turn 1: a final answer (stop_reason end_turn)
//   ]);
//   ... run claude (claude-session.ts) with ANTHROPIC_BASE_URL = server.url ...
//   await server.waitFor((r) => r.agent === 'LEAD-MARK' && r.turn === 1);   // a state, not a margin
//
// Keys: an agent is known by a marker found in the text of its first user message (a `-p` prompt,
// or the prompt a lead gave `Agent(...)`); markers are tried in the order scripted, so keep them
// distinct. Its turn is the number of assistant messages in the request; its attempt counts the
// requests already seen for that agent and turn (Claude Code's retries and its ~300 s resend of a
// frozen stream). A turn's entry is one Reply, an array of Replies (one per attempt; the last
// repeats), or a function of the request. A turn past the script, or an unknown agent, gets `text('ok')`.
//
// Reply fields: `blocks` (text / tool_use, streamed in order), `delayMs` before the response
// starts, `hold` (a promise awaited before it starts), `chunkMs` + `chunkChars` (slow streaming:
// one delta every chunkMs), `freeze` ('before_bytes' | 'after_headers' | 'mid_message': the
// response stops there until the client gives up, the server closes, or `freezeMs` passes: then the
// server drops the connection, a stand-in for Claude Code's own ~300 s abandon), `status` (429, 529, 500…)
// with `retryAfter` seconds (omitted: no header).
//
// HEAD / is 200; `count_tokens` answers `{input_tokens}`; a non-stream request gets the reply as
// one JSON message. Every request is logged in `server.requests` (method, path, headers, body,
// agent, turn, attempt, retryCount from `x-stainless-retry-count`, and when it ended and how).
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { jsonBody, type ScriptedHttp, type ScriptedRequest, sleep, startScriptedHttp, type TurnEntry } from './scripted-http.js';

export type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface Reply {
  blocks?: Block[];
  delayMs?: number;
  hold?: Promise<unknown>;
  chunkMs?: number;
  chunkChars?: number;
  freeze?: 'before_bytes' | 'after_headers' | 'mid_message';
  /** With `freeze`: drop the connection after this many ms (Claude Code then sends the request again). */
  freezeMs?: number;
  status?: number;
  retryAfter?: number;
  /** Extra response headers of an error reply (`anthropic-ratelimit-unified-*`: a plan's usage limit). */
  headers?: Record<string, string>;
  /** The body of an error reply, instead of `{type: "error", error: {type, message: "scripted <status>"}}`. */
  errorBody?: unknown;
}

export interface LoggedRequest extends ScriptedRequest {
  stream: boolean;
  retryCount: number | undefined;
}

export type TurnScript = TurnEntry<Reply, LoggedRequest>;

export interface ModelServer {
  url: string;
  port: number;
  requests: LoggedRequest[];
  /** Script an agent known by `marker` in its first user message; turn i uses turns[i]. */
  script(marker: string, turns: TurnScript[]): void;
  /** Resolve with the first logged request (past or future) matching `pred`; reject after timeoutMs. */
  waitFor(pred: (r: LoggedRequest) => boolean, timeoutMs?: number, what?: string): Promise<LoggedRequest>;
  /** The messages requests of one agent, in order. */
  of(marker: string): LoggedRequest[];
  close(): Promise<void>;
}

export const text = (t: string): Block => ({ type: 'text', text: t });
export const toolUse = (name: string, input: Record<string, unknown>, id = `toolu_${randomBytes(12).toString('hex')}`): Block => ({
  type: 'tool_use',
  id,
  name,
  input,
});
export const bash = (command: string, extra: Record<string, unknown> = {}): Block => toolUse('Bash', { command, description: 'run a command', ...extra });
/** The Agent tool as 2.1.197 advertises it; `prompt` should contain the subagent's marker. */
export const agent = (prompt: string, opts: { background?: boolean; description?: string } = {}): Block =>
  toolUse('Agent', {
    description: opts.description ?? 'a subagent',
    prompt,
    subagent_type: 'general-purpose',
    ...(opts.background ? { run_in_background: true } : {}),
  });

/** The text of a content value (string or blocks, tool results included). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((b: any) => (b?.type === 'text' ? String(b.text) : b?.type === 'tool_result' ? contentText(b.content) : '')).join('\n');
}

/** The tool_result blocks of the request's last user message. */
export function lastToolResults(req: LoggedRequest): { tool_use_id: string; text: string; is_error: boolean }[] {
  const msgs: any[] = req.body?.messages ?? [];
  const last = msgs[msgs.length - 1];
  if (!last || !Array.isArray(last.content)) return [];
  return last.content
    .filter((b: any) => b?.type === 'tool_result')
    .map((b: any) => ({ tool_use_id: b.tool_use_id, text: contentText(b.content), is_error: b.is_error === true }));
}

export async function startModelServer(): Promise<ModelServer> {
  const core = await startScriptedHttp<LoggedRequest, Reply>('model server', handle);

  /** The agent (a marker in its first user message) and turn (assistant messages so far) of a request body. */
  function identify(body: any): { agent?: string; turn: number } {
    const msgs: any[] = Array.isArray(body?.messages) ? body.messages : [];
    const first = contentText(msgs.find((m) => m?.role === 'user')?.content);
    return { agent: core.markerIn(first), turn: msgs.filter((m) => m?.role === 'assistant').length };
  }

  async function handle(core: ScriptedHttp<LoggedRequest, Reply>, req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'HEAD' || req.method === 'GET')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(req.method === 'GET' ? '{}' : undefined);
    const body = jsonBody(raw);
    const { agent: who, turn } = identify(body);
    const isMessages = url.pathname.endsWith('/v1/messages');
    const attempt = isMessages && who ? core.requests.filter((r) => r.agent === who && r.turn === turn && r.path.endsWith('/v1/messages')).length : 0;
    const rc = req.headers['x-stainless-retry-count'];
    const entry: LoggedRequest = {
      at: Date.now(),
      method: req.method ?? '',
      path: url.pathname,
      headers: req.headers,
      body,
      stream: body?.stream === true,
      agent: who,
      turn,
      attempt,
      retryCount: rc === undefined ? undefined : Number(rc),
    };
    const end = core.log(entry, res);
    if (url.pathname.endsWith('/count_tokens'))
      return void (res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 100 })), end('complete'));
    if (!isMessages) return void (res.writeHead(404).end('{}'), end('error:404'));
    const reply = core.pick(entry, () => ({ blocks: [text('ok')] }));
    if (!(await core.pace(reply, res))) return;
    if (reply.status && reply.status >= 400) {
      const type = reply.status === 429 ? 'rate_limit_error' : reply.status === 529 ? 'overloaded_error' : 'api_error';
      const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json' };
      if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter);
      Object.assign(headers, reply.headers);
      res.writeHead(reply.status, headers).end(JSON.stringify(reply.errorBody ?? { type: 'error', error: { type, message: `scripted ${reply.status}` } }));
      return end(`error:${reply.status}`);
    }
    if (reply.freeze === 'before_bytes') return; // never answer; the client gives up or the server closes
    const blocks = reply.blocks ?? [text('ok')];
    const id = `msg_${randomBytes(12).toString('hex')}`;
    const message = {
      id,
      type: 'message',
      role: 'assistant',
      model: body?.model ?? 'claude-sonnet',
      content: [] as unknown[],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    };
    const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    if (!entry.stream) {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ...message, content: blocks, stop_reason: stopReason, usage: { ...message.usage, output_tokens: 5 } }));
      return end('complete');
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'request-id': `req_${id}` });
    res.flushHeaders();
    if (reply.freeze === 'after_headers') return;
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    send('message_start', { type: 'message_start', message });
    const pieces = (s: string) => {
      const n = reply.chunkChars ?? (reply.chunkMs ? 1 : Math.max(1, s.length));
      const out: string[] = [];
      for (let i = 0; i < s.length; i += n) out.push(s.slice(i, i + n));
      return out.length ? out : [''];
    };
    const pace = async () => {
      if (reply.chunkMs) await sleep(reply.chunkMs);
      return core.isOpen(res);
    };
    for (const [index, b] of blocks.entries()) {
      if (b.type === 'text') {
        send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const [i, p] of pieces(b.text).entries()) {
          send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: p } });
          if (reply.freeze === 'mid_message' && index === 0 && i === 0) return; // a delta out, then silence
          if (!(await pace())) return;
        }
      } else {
        send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
        for (const p of pieces(JSON.stringify(b.input))) {
          send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: p } });
          if (reply.freeze === 'mid_message' && index === 0) return;
          if (!(await pace())) return;
        }
      }
      send('content_block_stop', { type: 'content_block_stop', index });
    }
    send('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
    send('message_stop', { type: 'message_stop' });
    res.end();
    end('complete');
  }

  return {
    url: `http://127.0.0.1:${core.port}`,
    port: core.port,
    requests: core.requests,
    script: core.script,
    of: (marker) => core.requests.filter((r) => r.agent === marker && r.path.endsWith('/v1/messages')),
    waitFor: core.waitFor,
    close: core.close,
  };
}
