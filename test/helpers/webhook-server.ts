// A webhook receiver on 127.0.0.1, port 0, that records every POST (headers, JSON body) and
// answers as the test says: a status (with headers), or never (a hung webhook). `await using`
// closes it, hung requests included.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface WebhookRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** `body: 'endless'`: the answer's body never ends, written as fast as the client reads it; `'trickle'`: one byte every 50 ms, forever. */
export type WebhookReply = { status: number; headers?: Record<string, string>; body?: 'endless' | 'trickle' } | { hang: true };

export async function startWebhookServer(reply: (req: WebhookRequest, n: number) => WebhookReply = () => ({ status: 200 })) {
  const requests: WebhookRequest[] = [];
  const hung = new Set<ServerResponse>();
  let answer = reply;
  const server = createServer((req, res) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      const r: WebhookRequest = { path: req.url ?? '', headers: req.headers, body };
      requests.push(r);
      const a = answer(r, requests.length);
      if ('hang' in a) return void hung.add(res);
      res.writeHead(a.status, { 'content-type': 'text/plain', ...a.headers });
      if (a.body === 'endless' || a.body === 'trickle') return void stream(res, a.body);
      res.end('ok');
    });
  });
  /** Body bytes written to endless or trickling answers (until their client went away). */
  const streamed = { bytes: 0, open: 0 };
  const stream = (res: ServerResponse, how: 'endless' | 'trickle') => {
    hung.add(res);
    streamed.open++;
    const chunk = Buffer.alloc(how === 'endless' ? 64 * 1024 : 1, 120);
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const end = () => {
      if (done) return;
      done = true;
      streamed.open--;
      clearTimeout(timer);
    };
    res.on('close', end);
    const pump = () => {
      if (done || res.destroyed) return end();
      streamed.bytes += chunk.length;
      const more = res.write(chunk);
      if (how === 'trickle') timer = setTimeout(pump, 50);
      else if (more) setImmediate(pump);
      else res.once('drain', pump);
    };
    pump();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** The webhook URL, with a token in its path like a Slack one. */
    url: `http://127.0.0.1:${port}/services/T000/B000/XOXB-s3cr3t-token`,
    token: 'XOXB-s3cr3t-token',
    requests,
    streamed,
    handle(r: typeof reply) {
      answer = r;
    },
    async [Symbol.asyncDispose]() {
      for (const res of hung) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type WebhookServer = Awaited<ReturnType<typeof startWebhookServer>>;
