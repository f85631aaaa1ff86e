// escalateInLinear against the fake Linear server: the real @linear/sdk over real HTTP.
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { escalateInLinear, type EscalateInLinearOptions } from '../../src/act/tracker/linear.js';
import { ActionError } from '../../src/contracts/errors.js';
import { renderEscalationComment } from '../../src/act/tracker/linear-comment.js';
import { replies, startLinearServer, type LinearServer, type Reply } from '../helpers/linear-server.js';

const KEY = 'lin_api_TESTKEY_0123456789abcdef';
const IDEMPOTENCY_KEY = 'epic-1:t1-r2:escalate';

/** Options for one run; waits are recorded, never slept. */
function setup(fake: LinearServer, extra: Partial<EscalateInLinearOptions> = {}) {
  const sleeps: number[] = [];
  const opts: EscalateInLinearOptions = {
    apiKey: KEY,
    apiUrl: fake.url,
    ticketId: 'ENG-123',
    commentBody: 'Stalled 3 times.',
    idempotencyKey: IDEMPOTENCY_KEY,
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0,
    ...extra,
  };
  return { opts, sleeps };
}

async function failure(p: Promise<unknown>): Promise<ActionError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ActionError);
  return e as ActionError;
}

describe('escalateInLinear', () => {
  it('moves the issue to Blocked and comments once, in a pinned request sequence', async () => {
    await using fake = await startLinearServer();
    const { opts, sleeps } = setup(fake);
    const r = await escalateInLinear(opts);
    expect(r).toEqual({ ok: true, tracker: 'updated', commented: true, issueId: 'issue-uuid-1', stateId: 'state-blocked', commentId: 'comment-1' });
    expect(fake.ops()).toEqual(['issue', 'workflowStates', 'updateIssue', 'dispatchWatchdogIssueComments', 'createComment']);
    const [issue, states, update, comments, create] = fake.requests;
    expect(issue!.variables).toEqual({ id: 'ENG-123' });
    expect(states!.variables).toEqual({ filter: { team: { id: { eq: 'team-1' } }, name: { eqIgnoreCase: 'Blocked' } }, first: 5 });
    expect(update!.variables).toEqual({ id: 'issue-uuid-1', input: { stateId: 'state-blocked' } });
    expect(comments!.variables).toEqual({ id: 'issue-uuid-1', first: 100 });
    expect(create!.variables.input.body).toMatchInlineSnapshot(`
      "Stalled 3 times.

      _Posted by dispatch-watchdog · key \`dispatch-watchdog:epic-1:t1-r2:escalate\`_
      <!-- dispatch-watchdog:epic-1:t1-r2:escalate -->
      "
    `);
    expect(issue!.headers.authorization).toBe(KEY);
    expect(fake.issue().stateId).toBe('state-blocked');
    expect(sleeps).toEqual([]);
  });

  it('matches the state name case-insensitively (linear.blocked_state)', async () => {
    await using fake = await startLinearServer();
    const { opts } = setup(fake, { blockedStateName: 'blocked' });
    await expect(escalateInLinear(opts)).resolves.toMatchObject({ tracker: 'updated', stateId: 'state-blocked' });
  });

  it("the comment starts with the seed's sentence and names the state as Linear spells it, not as configured (issue 33)", async () => {
    await using fake = await startLinearServer();
    const commentBody = (state: string) =>
      renderEscalationComment({
        ticketId: 'ENG-123',
        attempts: 3,
        history: [],
        frictionPath: 'friction/2026-04-02-stall-escalation-eng-123.md',
        key: IDEMPOTENCY_KEY,
        stateName: state,
      });
    const { opts } = setup(fake, { blockedStateName: 'blocked', commentBody });
    await escalateInLinear(opts);
    const body = String(fake.requests.at(-1)!.variables.input.body);
    expect(body.startsWith('Auto-blocked: agent stalled 3 times. Requires manual investigation. See dispatch log.\n')).toBe(true);
    expect(body).toContain('moved ENG-123 to **Blocked**');
    expect(body).not.toContain("(in the watchdog's state dir)");
  });

  it.each<[string, Reply]>([
    ['HTTP 400 with type "ratelimited"', replies.rateLimited({ retryAfterSec: 7 })],
    ['HTTP 400 with only code RATELIMITED', replies.rateLimited({ retryAfterSec: 7, typed: false })],
    ['HTTP 429', replies.rateLimited({ retryAfterSec: 7, status: 429 })],
  ])('retries a rate limit (%s), honouring Retry-After, then succeeds', async (_name, reply) => {
    await using fake = await startLinearServer();
    fake.enqueue('issue', reply);
    const { opts, sleeps } = setup(fake);
    await expect(escalateInLinear(opts)).resolves.toMatchObject({ tracker: 'updated', commented: true });
    expect(fake.ops().slice(0, 3)).toEqual(['issue', 'issue', 'workflowStates']);
    expect(sleeps).toEqual([7000]); // Retry-After (7 s) wins over the 500 ms backoff
  });

  it('gives up at once when Linear asks to wait longer than maxRateLimitWaitMs', async () => {
    await using fake = await startLinearServer();
    fake.enqueue('issue', replies.rateLimited({ retryAfterSec: 3600 }));
    const { opts, sleeps } = setup(fake);
    const e = await failure(escalateInLinear(opts));
    expect([e.code, e.isRetryable, e.message]).toMatchInlineSnapshot(`
      [
        "tracker_unavailable",
        true,
        "Linear escalation of ENG-123 failed at "look up the issue": rate limited by Linear after 1 attempt; Linear asked to wait 3600 s.",
      ]
    `);
    expect(fake.ops()).toEqual(['issue']);
    expect(sleeps).toEqual([]);
  });

  it('retries 5xx with exponential backoff, then succeeds', async () => {
    await using fake = await startLinearServer();
    fake.enqueue('updateIssue', replies.serverError(500), replies.serverError(502));
    const { opts, sleeps } = setup(fake);
    await expect(escalateInLinear(opts)).resolves.toMatchObject({ tracker: 'updated', commented: true });
    expect(fake.ops()).toEqual(['issue', 'workflowStates', 'updateIssue', 'updateIssue', 'updateIssue', 'dispatchWatchdogIssueComments', 'createComment']);
    expect(sleeps).toEqual([500, 1000]);
  });

  it('retries a 5xx or a rate limit while searching the comments, like every other call', async () => {
    await using fake = await startLinearServer();
    fake.enqueue('dispatchWatchdogIssueComments', replies.serverError(500), replies.rateLimited({ retryAfterSec: 2 }));
    const { opts, sleeps } = setup(fake);
    await expect(escalateInLinear(opts)).resolves.toMatchObject({ tracker: 'updated', commented: true });
    expect(fake.ops().filter((op) => op === 'dispatchWatchdogIssueComments')).toHaveLength(3);
    expect(sleeps).toEqual([500, 2000]);
    expect(fake.issue().comments).toHaveLength(1);
  });

  it('does not retry a comment search Linear refused (401)', async () => {
    await using fake = await startLinearServer();
    fake.enqueue('dispatchWatchdogIssueComments', replies.unauthorized());
    const { opts, sleeps } = setup(fake);
    const e = await failure(escalateInLinear(opts));
    expect([e.code, e.isRetryable]).toEqual(['tracker_auth', false]);
    expect(fake.ops().filter((op) => op === 'dispatchWatchdogIssueComments')).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('stops after the last retry with a retryable tracker_unavailable', async () => {
    await using fake = await startLinearServer();
    fake.handle((r) => (r.op === 'createComment' ? replies.serverError(502) : undefined));
    const { opts, sleeps } = setup(fake, { retries: 2 });
    const e = await failure(escalateInLinear(opts));
    expect([e.code, e.isRetryable, e.message]).toMatchInlineSnapshot(`
      [
        "tracker_unavailable",
        true,
        "Linear escalation of ENG-123 failed at "add the comment": Linear was unreachable or failing after 3 attempts (HTTP 502: GraphQL Error (Code: 502) - Bad Gateway).",
      ]
    `);
    expect(fake.ops().filter((op) => op === 'createComment')).toHaveLength(3);
    expect(sleeps).toEqual([500, 1000]);
  });

  it('times out a request that never gets an answer and retries it', async () => {
    await using fake = await startLinearServer();
    fake.enqueue('issue', replies.hang());
    const { opts } = setup(fake, { requestTimeoutMs: 100 });
    await expect(escalateInLinear(opts)).resolves.toMatchObject({ tracker: 'updated', commented: true });
    expect(fake.ops().slice(0, 2)).toEqual(['issue', 'issue']);
  });

  it('stops at once on 401, with a clear message and no retry', async () => {
    await using fake = await startLinearServer();
    fake.handle(() => replies.unauthorized());
    const { opts, sleeps } = setup(fake);
    const e = await failure(escalateInLinear(opts));
    expect(fake.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect({ code: e.code, isRetryable: e.isRetryable, text: e.describe() }).toMatchInlineSnapshot(`
      {
        "code": "tracker_auth",
        "isRetryable": false,
        "text": "Linear escalation of ENG-123 failed at "look up the issue": the API key was rejected (HTTP 401: Authentication required, not authenticated - You need to authenticate to access this operation.). Set LINEAR_API_KEY to a valid Linear personal API key (Linear: Settings > Security & access). Not retried: the same key would be rejected again.",
      }
    `);
  });

  it('reports an unknown ticket as tracker_not_found without retrying', async () => {
    await using fake = await startLinearServer();
    const { opts } = setup(fake, { ticketId: 'ENG-999' });
    const e = await failure(escalateInLinear(opts));
    expect(fake.ops()).toEqual(['issue']);
    expect([e.code, e.describe()]).toMatchInlineSnapshot(`
      [
        "tracker_not_found",
        "Linear escalation of ENG-999 failed at "look up the issue": Linear has no issue "ENG-999" that this API key can see (Entity not found: Issue - Could not find referenced Issue.). Check ticket_id in the state file: expected a Linear issue identifier such as "ENG-123". Not retried.",
      ]
    `);
  });

  it('fails clearly when the team has no Blocked state, and changes nothing', async () => {
    await using fake = await startLinearServer({
      states: [
        { id: 'state-todo', name: 'Todo', type: 'unstarted', teamId: 'team-1' },
        { id: 'state-done', name: 'Done', type: 'completed', teamId: 'team-1' },
      ],
    });
    const { opts } = setup(fake);
    const e = await failure(escalateInLinear(opts));
    expect([e.code, e.isRetryable, e.describe()]).toMatchInlineSnapshot(`
      [
        "tracker_input",
        false,
        "Linear escalation of ENG-123 failed at "find the workflow state": team ENG has no workflow state named "Blocked" (matched case-insensitively); its states are "Todo", "Done". Add a "Blocked" state to the team's workflow in Linear, or set linear.blocked_state in the watchdog config to the name of an existing state.",
      ]
    `);
    expect(fake.ops()).toEqual(['issue', 'workflowStates', 'workflowStates']);
    expect(fake.issue().stateId).toBe('state-todo');
    expect(fake.issue().comments).toEqual([]);
  });

  it('does not update an issue that is already Blocked', async () => {
    await using fake = await startLinearServer({ issues: [{ stateId: 'state-blocked' }] });
    const { opts } = setup(fake);
    await expect(escalateInLinear(opts)).resolves.toEqual({
      ok: true,
      tracker: 'already_blocked',
      commented: true,
      issueId: 'issue-uuid-1',
      stateId: 'state-blocked',
      commentId: 'comment-1',
    });
    expect(fake.ops()).toEqual(['issue', 'workflowStates', 'dispatchWatchdogIssueComments', 'createComment']);
  });

  it('after a crash, a re-run neither updates nor comments again', async () => {
    await using fake = await startLinearServer();
    const { opts } = setup(fake);
    await escalateInLinear(opts);
    fake.requests.length = 0;
    const again = await escalateInLinear(opts);
    expect(again).toEqual({
      ok: true,
      tracker: 'already_blocked',
      commented: false,
      issueId: 'issue-uuid-1',
      stateId: 'state-blocked',
      commentId: 'comment-1',
    });
    expect(fake.ops()).toEqual(['issue', 'workflowStates', 'dispatchWatchdogIssueComments']);
    expect(fake.issue().comments).toHaveLength(1);
  });

  it('does not comment twice when the reply to the first comment was lost', async () => {
    await using fake = await startLinearServer();
    fake.enqueue('createComment', replies.lostAfterApply());
    const { opts } = setup(fake);
    await expect(escalateInLinear(opts)).resolves.toMatchObject({ tracker: 'updated', commented: true, commentId: 'comment-1' });
    expect(fake.ops().slice(-3)).toEqual(['dispatchWatchdogIssueComments', 'createComment', 'dispatchWatchdogIssueComments']);
    expect(fake.issue().comments).toHaveLength(1);
  });

  it('finds the keyed comment on a later page, and ignores a similar key', async () => {
    const others = Array.from({ length: 150 }, (_, n) => ({
      id: `old-${n}`,
      body: n === 7 ? 'see dispatch-watchdog:epic-1:t1-r2:escalate-not' : `comment ${n}`,
    }));
    const mine = { id: 'old-keyed', body: `Stalled.\n<!-- dispatch-watchdog:${IDEMPOTENCY_KEY} -->` };
    await using fake = await startLinearServer({ issues: [{ stateId: 'state-blocked', comments: [...others, mine] }] });
    const { opts } = setup(fake);
    await expect(escalateInLinear(opts)).resolves.toMatchObject({ tracker: 'already_blocked', commented: false, commentId: 'old-keyed' });
    expect(fake.ops()).toEqual(['issue', 'workflowStates', 'dispatchWatchdogIssueComments', 'dispatchWatchdogIssueComments']);
    expect(fake.requests[3]!.variables).toEqual({ id: 'issue-uuid-1', first: 100, after: '100' });
  });

  it('stops retrying when the signal aborts', async () => {
    await using fake = await startLinearServer();
    fake.handle(() => replies.serverError(503));
    const ac = new AbortController();
    const { opts } = setup(fake, { signal: ac.signal, sleep: async () => ac.abort(new Error('watchdog is stopping')) });
    const e = await failure(escalateInLinear(opts));
    expect([e.code, e.isRetryable, e.message]).toMatchInlineSnapshot(`
      [
        "tracker_unavailable",
        true,
        "Linear escalation of ENG-123 failed at "look up the issue": cancelled after 1 attempt (watchdog is stopping).",
      ]
    `);
    expect(fake.requests).toHaveLength(1);
  });

  it('says why it was cancelled: the watchdog stopped by a signal, or the time budget ran out (never "[object Object]")', async () => {
    await using fake = await startLinearServer();
    fake.handle(() => replies.serverError(503));
    const ac = new AbortController();
    const stopped = await failure(escalateInLinear(setup(fake, { signal: ac.signal, sleep: async () => ac.abort({ signal: 'SIGTERM' }) }).opts));
    expect(stopped.message).toBe('Linear escalation of ENG-123 failed at "look up the issue": cancelled after 1 attempt (the watchdog was stopped (SIGTERM)).');
    await using silent = await startLinearServer();
    silent.handle(() => replies.hang());
    const late = await failure(escalateInLinear(setup(silent, { totalBudgetMs: 200, requestTimeoutMs: 60_000 }).opts));
    expect(late.message).toMatch(/cancelled after 1 attempt \(Linear did not answer within the escalation's time budget\)\.$/);
  });

  describe('never reveals the API key', () => {
    const echo = (r: { headers: { authorization?: string } }) => `bad credentials ${r.headers.authorization}`;
    it.each<[string, (fake: LinearServer) => void]>([
      ['401 echoing the key', (f) => f.handle((r) => replies.unauthorized(echo(r)))],
      ['401 starting with the key (the SDK capitalises it)', (f) => f.handle((r) => replies.unauthorized(`${r.headers.authorization} is not a valid key`))],
      ['invalid input echoing the key', (f) => f.handle((r) => replies.invalidInput(echo(r)))],
      ['5xx text echoing the key, retried to the end', (f) => f.handle((r) => ({ status: 503, headers: { 'content-type': 'text/plain' }, body: echo(r) }))],
      ['rate limit echoing the key', (f) => f.handle((r) => ({ status: 400, body: { errors: [{ message: echo(r), extensions: { code: 'RATELIMITED' } }] } }))],
      ['HTML answer echoing the key', (f) => f.handle((r) => ({ status: 200, headers: { 'content-type': 'text/html' }, body: `<p>${echo(r)}</p>` }))],
    ])('%s', async (_name, arrange) => {
      await using fake = await startLinearServer();
      arrange(fake);
      const { opts } = setup(fake, { retries: 1 });
      const e = await failure(escalateInLinear(opts));
      expect(fake.requests[0]!.headers.authorization).toBe(KEY); // the server did see it
      const cause = e.cause as Error;
      for (const text of [e.message, e.stack, e.hint, e.describe(), JSON.stringify(e), inspect(e, { depth: 10 }), cause?.message, cause?.stack]) {
        expect((text ?? '').toLowerCase()).not.toContain(KEY.toLowerCase());
      }
      expect(cause.message).toContain('[redacted]'); // the server's words are kept, minus the key
    });

    it('nor in the error for an empty key or a bad api url', async () => {
      const e1 = await failure(escalateInLinear({ apiKey: ' ', ticketId: 'ENG-1', commentBody: 'x', idempotencyKey: 'k' }));
      expect([e1.code, e1.describe()]).toMatchInlineSnapshot(`
        [
          "tracker_auth",
          "Linear escalation of ENG-1 failed at "connect": the API key is empty. Set LINEAR_API_KEY, or unset it to skip the tracker.",
        ]
      `);
      const e2 = await failure(
        escalateInLinear({ apiKey: KEY, apiUrl: 'http://example.com/graphql', ticketId: 'ENG-1', commentBody: 'x', idempotencyKey: 'k' }),
      );
      expect([e2.code, e2.describe()]).toMatchInlineSnapshot(`
        [
          "tracker_input",
          "Linear escalation of ENG-1 failed at "connect": cannot use http://example.com/graphql (LinearClient apiUrl must use HTTPS unless it points to a local development server). Set linear.api_url to an https URL (http only for localhost).",
        ]
      `);
      expect(inspect(e2)).not.toContain(KEY);
    });
  });
});
