// A fake Linear GraphQL API on 127.0.0.1 (port 0) for the real @linear/sdk (libraries.md §1.4).
// It reads the operation name from the query text, keeps issue state and comments so updates
// persist, records every request, and lets a test answer chosen requests itself.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { onTestFinished } from 'vitest';

/** One request as the server received it; `op` is the operation name parsed from the query text. */
export interface RecordedRequest {
  op: string;
  variables: Record<string, any>;
  headers: http.IncomingHttpHeaders;
  body: { query: string; variables?: Record<string, any> };
}
/** A canned reply; `hang` never answers (until the server closes); `applyThen` does the normal work, then answers with its reply (a lost reply). */
export type Reply = { status: number; headers?: Record<string, string>; body: unknown } | { hang: true } | { applyThen: Reply };
/** Return a Reply to answer the request yourself, or undefined for the fake's normal behaviour. */
export type Handler = (req: RecordedRequest) => Reply | undefined;

/** An issue the fake keeps; updates and comments change it. */
export interface FakeIssue {
  id: string;
  identifier: string;
  teamId: string;
  stateId: string;
  comments: { id: string; body: string }[];
}
/** A workflow state of a team. */
export interface FakeState {
  id: string;
  name: string;
  type: string;
  teamId: string;
}

/** Canned failures, shaped as libraries.md §1.5 captured them. */
export const replies = {
  unauthorized: (message = 'Authentication required, not authenticated'): Reply => ({
    status: 401,
    body: {
      errors: [
        {
          message,
          extensions: {
            type: 'authentication error',
            code: 'AUTHENTICATION_ERROR',
            statusCode: 401,
            userError: true,
            userPresentableMessage: 'You need to authenticate to access this operation.',
          },
        },
      ],
    },
  }),
  /** Linear's RATELIMITED reply: HTTP 400 (or 429) with extensions.code, and Retry-After in seconds. */
  rateLimited: ({ retryAfterSec, status = 400, typed = true }: { retryAfterSec?: number; status?: number; typed?: boolean } = {}): Reply => ({
    status,
    headers: retryAfterSec === undefined ? {} : { 'retry-after': String(retryAfterSec) },
    body: { errors: [{ message: 'Rate limit exceeded', extensions: { ...(typed ? { type: 'ratelimited' } : {}), code: 'RATELIMITED', statusCode: 429 } }] },
  }),
  serverError: (status = 500): Reply => ({ status, headers: { 'content-type': 'text/plain' }, body: status === 500 ? 'Internal Server Error' : 'Bad Gateway' }),
  invalidInput: (message: string): Reply => ({
    status: 200,
    body: { data: null, errors: [{ message, extensions: { type: 'invalid input', code: 'INPUT_ERROR', statusCode: 400, userError: true } }] },
  }),
  hang: (): Reply => ({ hang: true }),
  /** The server commits the change, but the client sees `reply` (default: a 502). */
  lostAfterApply: (reply: Reply = replies.serverError(502)): Reply => ({ applyThen: reply }),
};

const T = '2025-01-01T00:00:00.000Z';
const pageInfo = (hasNextPage = false, endCursor: string | null = null) => ({ hasNextPage, hasPreviousPage: false, startCursor: null, endCursor });
const stateNode = (s: FakeState) => ({
  id: s.id,
  name: s.name,
  type: s.type,
  color: '#888888',
  position: 1,
  team: { id: s.teamId },
  createdAt: T,
  updatedAt: T,
});
const issueNode = (i: FakeIssue) => ({
  id: i.id,
  identifier: i.identifier,
  title: 'Fix the thing',
  number: Number(i.identifier.split('-').at(-1)),
  url: `https://linear.app/acme/issue/${i.identifier}`,
  priority: 0,
  priorityLabel: 'No priority',
  createdAt: T,
  updatedAt: T,
  labelIds: [],
  previousIdentifiers: [],
  reactionData: [],
  reactions: [],
  sharedAccess: { isShared: false, sharedWithCount: 0, viewerHasOnlySharedAccess: false, disallowedIssueFields: [], sharedWithUsers: [] },
  team: { id: i.teamId },
  state: { id: i.stateId },
});

/** Team ENG (team-1): Todo, In Progress, Blocked. */
export const defaultStates = (): FakeState[] => [
  { id: 'state-todo', name: 'Todo', type: 'unstarted', teamId: 'team-1' },
  { id: 'state-progress', name: 'In Progress', type: 'started', teamId: 'team-1' },
  { id: 'state-blocked', name: 'Blocked', type: 'started', teamId: 'team-1' },
];

/** Start the fake; it closes when the test finishes (or on `await using`). */
export async function startLinearServer(opts: { states?: FakeState[]; issues?: Partial<FakeIssue>[] } = {}) {
  const states = opts.states ?? defaultStates();
  const issues: FakeIssue[] = (opts.issues ?? [{}]).map((p, n) => ({
    id: `issue-uuid-${n + 1}`,
    identifier: `ENG-${123 + n}`,
    teamId: 'team-1',
    stateId: 'state-todo',
    comments: [],
    ...p,
  }));
  const requests: RecordedRequest[] = [];
  const handlers: Handler[] = [];
  const queued = new Map<string, Reply[]>();
  let nextComment = 1;
  const ok = (data: unknown): Reply => ({ status: 200, body: { data } });
  const find = (id: unknown) => issues.find((i) => i.id === id || i.identifier === id);

  const answer = (r: RecordedRequest): Reply => {
    const v = r.variables;
    switch (r.op) {
      case 'issue': {
        const i = find(v.id);
        return i ? ok({ issue: issueNode(i) }) : replies.invalidInput('Entity not found: Issue - Could not find referenced Issue.');
      }
      case 'workflowStates': {
        const team = v.filter?.team?.id?.eq;
        const name = v.filter?.name?.eq ?? v.filter?.name?.eqIgnoreCase;
        const nodes = states.filter((s) => (!team || s.teamId === team) && (!name || s.name.toLowerCase() === String(name).toLowerCase()));
        return ok({ workflowStates: { nodes: nodes.map(stateNode), pageInfo: pageInfo() } });
      }
      case 'updateIssue': {
        const i = find(v.id);
        if (!i || !states.some((s) => s.id === v.input?.stateId)) return replies.invalidInput('Entity not found');
        i.stateId = v.input.stateId;
        return ok({ issueUpdate: { success: true, lastSyncId: 1, issue: { id: i.id } } });
      }
      case 'createComment': {
        const i = find(v.input?.issueId);
        if (!i) return replies.invalidInput('Entity not found: Issue');
        const c = { id: `comment-${nextComment++}`, body: String(v.input.body) };
        i.comments.push(c);
        return ok({ commentCreate: { success: true, lastSyncId: 2, comment: { id: c.id } } });
      }
      case 'dispatchWatchdogIssueComments': {
        const i = find(v.id);
        if (!i) return replies.invalidInput('Entity not found: Issue');
        const start = v.after ? Number(v.after) : 0;
        const nodes = i.comments.slice(start, start + (v.first ?? 50));
        const end = start + nodes.length;
        return ok({ issue: { comments: { nodes, pageInfo: pageInfo(end < i.comments.length, String(end)) } } });
      }
      default:
        return { status: 400, body: { errors: [{ message: `fake: unhandled op ${r.op}` }] } };
    }
  };

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw) as RecordedRequest['body'];
      const op = /^\s*(?:query|mutation)\s+(\w+)/.exec(body.query)?.[1] ?? '?';
      const r: RecordedRequest = { op, variables: body.variables ?? {}, headers: req.headers, body };
      requests.push(r);
      let reply = queued.get(op)?.shift() ?? queued.get('*')?.shift() ?? handlers.reduce<Reply | undefined>((a, h) => a ?? h(r), undefined) ?? answer(r);
      while ('applyThen' in reply) {
        answer(r);
        reply = reply.applyThen;
      }
      if ('hang' in reply) return;
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
      res.writeHead(reply.status, { 'content-type': 'application/json; charset=utf-8', ...reply.headers });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  let closed: Promise<void> | undefined;
  const close = () =>
    (closed ??= new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }));
  onTestFinished(close);

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`,
    requests,
    issues,
    states,
    /** Operation names of every request so far, in order. */
    ops: () => requests.map((r) => r.op),
    issue: (identifier = 'ENG-123') => find(identifier)!,
    /** Answer the next requests of `op` (or of any op, with '*') with these replies, in order. */
    enqueue: (op: string, ...rs: Reply[]) => void queued.set(op, [...(queued.get(op) ?? []), ...rs]),
    /** Let `h` answer any request it returns a Reply for. */
    handle: (h: Handler) => void handlers.push(h),
    close,
    [Symbol.asyncDispose]: close,
  };
}

/** The handle startLinearServer returns. */
export type LinearServer = Awaited<ReturnType<typeof startLinearServer>>;
