// The HTTP plumbing shared by the scripted model servers (model-server.ts: the Anthropic Messages
// API for Claude Code; responses-server.ts: the OpenAI Responses API for Codex): a server on
// 127.0.0.1 port 0, scripts by marker and turn, a request log with waiters, the pacing of a reply
// (a freeze timer, a hold, a delay) and a close that drops every connection. Each server keeps
// only its own wire format: how a request names its agent and turn, and how a reply is streamed.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What every logged request has. */
export interface ScriptedRequest {
  at: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** The marker of the scripted agent, or undefined (side requests, unknown agents). */
  agent: string | undefined;
  turn: number;
  attempt: number;
  /** Set when the response ended: 'complete', 'error:<status>', or 'aborted' (the client hung up). */
  outcome?: string;
  endedAt?: number;
}

/** A turn's entry: one reply, one per attempt (the last repeats), or a function of the request. */
export type TurnEntry<R, L> = R | R[] | ((req: L) => R);

/** The pacing fields every reply has. */
export interface PacedReply {
  delayMs?: number;
  hold?: Promise<unknown>;
  freeze?: string;
  freezeMs?: number;
}

export interface ScriptedHttp<L extends ScriptedRequest, R> {
  port: number;
  requests: L[];
  script(marker: string, turns: TurnEntry<R, L>[]): void;
  /** The first scripted marker `text` contains (markers are tried in the order scripted). */
  markerIn(text: string): string | undefined;
  /** The reply scripted for `r`'s agent, turn and attempt; `fallback` past the script or for an unknown agent. */
  pick(r: L, fallback: () => R): R;
  /** Log `entry` and tell its waiters; returns `end(outcome)` (once; the response closing ends it as 'aborted'). */
  log(entry: L, res: http.ServerResponse): (outcome: string) => void;
  /** Arm the freeze timer, await the hold and the delay: false when the server closed or the client left meanwhile. */
  pace(reply: PacedReply, res: http.ServerResponse): Promise<boolean>;
  /** The server is open and the client still there. */
  isOpen(res: http.ServerResponse): boolean;
  /** Resolve with the first logged request (past or future) matching `pred`, or when one ends; reject after timeoutMs. */
  waitFor(pred: (r: L) => boolean, timeoutMs?: number, what?: string): Promise<L>;
  close(): Promise<void>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A request body as JSON (`{unparsed}` when it is not). */
export function jsonBody(raw: string): any {
  try {
    return raw ? JSON.parse(raw) : {};
  } catch {
    return { unparsed: raw };
  }
}

/** Start the plumbing; `handle` answers each request once its body is read. `name` prefixes timeouts. */
export async function startScriptedHttp<L extends ScriptedRequest, R>(
  name: string,
  handle: (core: ScriptedHttp<L, R>, req: http.IncomingMessage, res: http.ServerResponse, raw: string) => Promise<void>,
): Promise<ScriptedHttp<L, R>> {
  const scripts: { marker: string; turns: TurnEntry<R, L>[] }[] = [];
  const requests: L[] = [];
  const waiters: { pred: (r: L) => boolean; resolve: (r: L) => void }[] = [];
  const sockets = new Set<Socket>();
  let closed = false;
  const notify = (r: L) => {
    for (const w of [...waiters])
      if (w.pred(r)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(r);
      }
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(core, req, res, Buffer.concat(chunks).toString('utf8')).catch(() => res.destroy()));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const core: ScriptedHttp<L, R> = {
    port: (server.address() as AddressInfo).port,
    requests,
    script: (marker, turns) => void scripts.push({ marker, turns }),
    markerIn: (text) => scripts.find((x) => text.includes(x.marker))?.marker,
    pick(r, fallback) {
      const entry = scripts.find((x) => x.marker === r.agent)?.turns[r.turn];
      if (entry === undefined) return fallback();
      if (typeof entry === 'function') return (entry as (req: L) => R)(r);
      if (Array.isArray(entry)) return entry[Math.min(r.attempt, entry.length - 1)] ?? fallback();
      return entry;
    },
    log(entry, res) {
      requests.push(entry);
      const end = (outcome: string) => {
        if (entry.outcome) return;
        entry.outcome = outcome;
        entry.endedAt = Date.now();
        notify(entry);
      };
      res.on('close', () => end('aborted'));
      notify(entry);
      return end;
    },
    async pace(reply, res) {
      if (reply.freeze && reply.freezeMs !== undefined) {
        const timer = setTimeout(() => res.destroy(), reply.freezeMs);
        res.on('close', () => clearTimeout(timer));
      }
      if (reply.hold) await reply.hold;
      if (reply.delayMs) await sleep(reply.delayMs);
      return !(closed || res.destroyed);
    },
    isOpen: (res) => !(closed || res.destroyed),
    waitFor: (pred, timeoutMs = 60_000, what = 'a request') =>
      new Promise((resolve, reject) => {
        const hit = requests.find(pred);
        if (hit) return resolve(hit);
        const w = {
          pred,
          resolve: (r: L) => {
            clearTimeout(timer);
            resolve(r);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          reject(new Error(`${name}: timed out waiting for ${what}`));
        }, timeoutMs);
        waiters.push(w);
      }),
    close: async () => {
      if (closed) return;
      closed = true;
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return core;
}
