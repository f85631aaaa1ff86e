// A scripted stand-in for the OpenAI Responses API on 127.0.0.1, for running the real `codex exec`
// offline (what 0.171.0 sends and expects: ../shared/reference/codex-0.171.0.md §1).
//
//   const server = await startResponsesServer();          // port 0; afterAll(() => server.close())
//   server.script('CX-MARK', [                            // an agent: a user message contains the marker
//     { items: [execCommand('sleep 3; echo hi', { yieldMs: 1000 })] },   // turn 0: a function call
//     { items: [writeStdin(sessionIdOf)] },                              // or a function of the request
//     { items: [say('finished')] },                                      // then a final answer
//   ]);
//   ... run codex (codex-session.ts) with base_url = server.baseUrl ...
//   await server.waitFor((r) => r.agent === 'CX-MARK' && r.turn === 2);  // a state, not a margin
//
// Keys: an agent is known by a marker found in the text of a user message of `input` (the prompt);
// markers are tried in the order scripted, so keep them distinct. Its turn is the number of model
// output items already in `input` (function calls and assistant messages), so script one item per
// reply. Its attempt counts the requests already seen for that agent and turn (Codex's HTTP and
// stream retries). A turn's entry is one Reply, an array of Replies (one per attempt; the last
// repeats), or a function of the request. A turn past the script, or an unknown agent, gets `say('ok')`.
//
// Reply fields: `items` (text / function calls, streamed in order), `delayMs` before the response
// starts, `hold` (a promise awaited before it starts), `chunkMs` (one text delta per character, this
// far apart), `freeze` ('before_headers': the request is read and never answered; 'after_headers':
// 200 + SSE headers, then nothing; 'mid_stream': `response.created` and one delta, then nothing)
// until the client hangs up or `freezeMs` passes (then the server drops the connection), `status`
// (429, 500…) with `retryAfter` seconds (omitted: no header) and `errorBody` (default a plain
// `{error:{type,message}}`; `usageLimit()` is the body of an exhausted plan).
//
// Every POST is logged in `server.requests` (path, headers, body, agent, turn, attempt, and when
// and how it ended: 'complete', 'error:<status>', 'aborted'). Other paths (Codex's analytics POST)
// get 404 and are logged with agent undefined.
import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { jsonBody, type ScriptedHttp, type ScriptedRequest, sleep, startScriptedHttp, type TurnEntry } from './scripted-http.js';

export type Item =
  | { type: 'text'; text: string }
  | { type: 'function_call'; name: string; callId: string; arguments: Record<string, unknown>; namespace?: string }
  | { type: 'custom_tool_call'; name: string; callId: string; input: string };

export interface Reply {
  items?: Item[];
  delayMs?: number;
  hold?: Promise<unknown>;
  chunkMs?: number;
  freeze?: 'before_headers' | 'after_headers' | 'mid_stream';
  freezeMs?: number;
  status?: number;
  retryAfter?: number;
  errorBody?: unknown;
}

export interface LoggedRequest extends ScriptedRequest {
  /** The thread id Codex sent (`thread-id` header, else `prompt_cache_key`). */
  threadId: string | undefined;
}

export type TurnScript = TurnEntry<Reply, LoggedRequest>;

export interface ResponsesServer {
  /** `http://127.0.0.1:<port>/v1`: the provider's `base_url` (Codex POSTs `{base_url}/responses`). */
  baseUrl: string;
  port: number;
  requests: LoggedRequest[];
  script(marker: string, turns: TurnScript[]): void;
  /** Resolve with the first logged request (past or future) matching `pred`, or when one ends; reject after timeoutMs. */
  waitFor(pred: (r: LoggedRequest) => boolean, timeoutMs?: number, what?: string): Promise<LoggedRequest>;
  /** The /responses requests of one agent, in order. */
  of(marker: string): LoggedRequest[];
  close(): Promise<void>;
}

export const say = (text: string): Item => ({ type: 'text', text });
export const call = (name: string, args: Record<string, unknown>, callId = `call_${randomBytes(8).toString('hex')}`): Item => ({
  type: 'function_call',
  name,
  callId,
  arguments: args,
});
/** `exec_command`: the shell tool; Codex yields after `yieldMs` with "Process running with session ID N". */
export const execCommand = (cmd: string, opts: { yieldMs?: number } = {}): Item => call('exec_command', { cmd, yield_time_ms: opts.yieldMs ?? 10_000 });
/** `write_stdin`: an empty poll of a yielded command's session. */
export const writeStdin = (sessionId: number, opts: { yieldMs?: number } = {}): Item =>
  call('write_stdin', { session_id: sessionId, chars: '', yield_time_ms: opts.yieldMs ?? 30_000 });
/** Code mode (a catalog model): the freeform `exec` tool, whose input is JavaScript run by codex-code-mode-host. */
export const execScript = (input: string, callId = `call_${randomBytes(8).toString('hex')}`): Item => ({
  type: 'custom_tool_call',
  name: 'exec',
  callId,
  input,
});
/** An OpenAI usage-limit 429 body: Codex fails at once ("usage_limit_exceeded"), retry-after or not. */
export const usageLimit = () => ({
  error: { type: 'usage_limit_reached', message: 'The usage limit has been reached', plan_type: 'plus', resets_in_seconds: 3600 },
});

/** The text of a message's content (input_text / output_text parts). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: any) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
}

/** The newest `function_call_output` in a request's input: its call id and text. */
export function lastCallOutput(req: LoggedRequest): { callId: string; output: string } | undefined {
  const input: any[] = Array.isArray(req.body?.input) ? req.body.input : [];
  for (let i = input.length - 1; i >= 0; i--) {
    const it = input[i];
    if (it?.type === 'function_call_output') return { callId: String(it.call_id), output: typeof it.output === 'string' ? it.output : contentText(it.output) };
  }
  return undefined;
}

/** The unified-exec session a yielded command's output names ("Process running with session ID N"). */
export function runningSessionOf(req: LoggedRequest): number | undefined {
  const m = /Process running with session ID (\d+)/.exec(lastCallOutput(req)?.output ?? '');
  return m ? Number(m[1]) : undefined;
}

export async function startResponsesServer(): Promise<ResponsesServer> {
  const core = await startScriptedHttp<LoggedRequest, Reply>('responses server', handle);

  /** The agent (a marker in a user message's text) and turn (model output items already in `input`) of a request body. */
  function identify(body: any): { agent?: string; turn: number } {
    const input: any[] = Array.isArray(body?.input) ? body.input : [];
    const userText = input
      .filter((m) => m?.type === 'message' && m.role === 'user')
      .map((m) => contentText(m.content))
      .join('\n');
    const turn = input.filter((m) => m?.type === 'function_call' || m?.type === 'custom_tool_call' || (m?.type === 'message' && m.role === 'assistant')).length;
    return { agent: core.markerIn(userText), turn };
  }

  async function handle(core: ScriptedHttp<LoggedRequest, Reply>, req: http.IncomingMessage, res: http.ServerResponse, raw: string) {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = jsonBody(raw);
    const isResponses = req.method === 'POST' && url.pathname.endsWith('/responses');
    const { agent: who, turn } = isResponses ? identify(body) : { agent: undefined, turn: 0 };
    const attempt = isResponses && who ? core.requests.filter((r) => r.agent === who && r.turn === turn && r.path.endsWith('/responses')).length : 0;
    const th = req.headers['thread-id'];
    const threadId = typeof th === 'string' ? th : typeof body?.prompt_cache_key === 'string' ? body.prompt_cache_key : undefined;
    const entry: LoggedRequest = {
      at: Date.now(),
      method: req.method ?? '',
      path: url.pathname,
      headers: req.headers,
      body,
      agent: who,
      turn,
      attempt,
      threadId,
    };
    const end = core.log(entry, res);
    if (!isResponses) return void (res.writeHead(404, { 'content-type': 'application/json' }).end('{}'), end('error:404'));
    const reply = core.pick(entry, () => ({ items: [say('ok')] }));
    if (!(await core.pace(reply, res))) return;
    if (reply.status && reply.status >= 400) {
      const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', 'x-request-id': `req_mock_${core.requests.length}` };
      if (reply.retryAfter !== undefined) headers['retry-after'] = String(reply.retryAfter);
      const type = reply.status === 429 ? 'rate_limit_exceeded' : 'server_error';
      res.writeHead(reply.status, headers).end(JSON.stringify(reply.errorBody ?? { error: { type, message: `scripted ${reply.status}` } }));
      return end(`error:${reply.status}`);
    }
    if (reply.freeze === 'before_headers') return; // never answered: Codex has no timeout for this
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': `req_mock_${core.requests.length}` });
    res.flushHeaders();
    if (reply.freeze === 'after_headers') return;
    const id = `resp_${randomBytes(8).toString('hex')}`;
    const send = (data: Record<string, unknown>) => res.write(`event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`);
    const alive = () => core.isOpen(res);
    send({ type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } });
    const items = reply.items ?? [say('ok')];
    for (const [index, it] of items.entries()) {
      if (it.type === 'text') {
        const itemId = `msg_${index}_${randomBytes(4).toString('hex')}`;
        const done = {
          type: 'message',
          id: itemId,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: it.text, annotations: [] }],
        };
        send({ type: 'response.output_item.added', output_index: index, item: { ...done, status: 'in_progress', content: [] } });
        send({
          type: 'response.content_part.added',
          item_id: itemId,
          output_index: index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [] },
        });
        const pieces = reply.chunkMs ? [...it.text] : [it.text];
        for (const p of pieces) {
          send({ type: 'response.output_text.delta', item_id: itemId, output_index: index, content_index: 0, delta: p });
          if (reply.freeze === 'mid_stream') return;
          if (reply.chunkMs) await sleep(reply.chunkMs);
          if (!alive()) return;
        }
        send({ type: 'response.output_text.done', item_id: itemId, output_index: index, content_index: 0, text: it.text });
        send({ type: 'response.content_part.done', item_id: itemId, output_index: index, content_index: 0, part: done.content[0] });
        send({ type: 'response.output_item.done', output_index: index, item: done });
      } else if (it.type === 'custom_tool_call') {
        const done = {
          type: 'custom_tool_call',
          id: `ctc_${index}_${randomBytes(4).toString('hex')}`,
          status: 'completed',
          call_id: it.callId,
          name: it.name,
          input: it.input,
        };
        send({ type: 'response.output_item.added', output_index: index, item: { ...done, status: 'in_progress', input: '' } });
        send({ type: 'response.custom_tool_call_input.delta', item_id: done.id, output_index: index, delta: it.input });
        send({ type: 'response.custom_tool_call_input.done', item_id: done.id, output_index: index, input: it.input });
        send({ type: 'response.output_item.done', output_index: index, item: done });
      } else {
        const args = JSON.stringify(it.arguments);
        const done = {
          type: 'function_call',
          id: `fc_${index}_${randomBytes(4).toString('hex')}`,
          status: 'completed',
          name: it.name,
          call_id: it.callId,
          arguments: args,
          ...(it.namespace ? { namespace: it.namespace } : {}),
        };
        send({ type: 'response.output_item.added', output_index: index, item: { ...done, status: 'in_progress', arguments: '' } });
        if (reply.freeze === 'mid_stream') return;
        send({ type: 'response.function_call_arguments.delta', item_id: done.id, output_index: index, delta: args });
        send({ type: 'response.function_call_arguments.done', item_id: done.id, output_index: index, arguments: args });
        send({ type: 'response.output_item.done', output_index: index, item: done });
      }
    }
    const usage = {
      input_tokens: 100,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 10,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 110,
    };
    send({ type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [], usage } });
    res.end();
    end('complete');
  }

  return {
    baseUrl: `http://127.0.0.1:${core.port}/v1`,
    port: core.port,
    requests: core.requests,
    script: core.script,
    of: (marker) => core.requests.filter((r) => r.agent === marker && r.path.endsWith('/responses')),
    waitFor: core.waitFor,
    close: core.close,
  };
}
