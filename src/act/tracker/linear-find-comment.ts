// Find the issue comment that carries an idempotency key (DESIGN §8: "Linear comment carrying the
// key" is the escalation's marker). One small custom query: only ids and bodies, 100 per page.
import type { LinearClient } from '@linear/sdk';
import { hasCommentKey } from './linear-comment.js';

const PAGE_SIZE = 100;
/** An issue with more comments than this (100,000) is not searched further; the escalation's time budget bounds it too. */
const MAX_PAGES = 1000;

/** The query the fake server in test/helpers/linear-server.ts answers by this operation name. */
export const COMMENTS_QUERY = `query dispatchWatchdogIssueComments($id: String!, $first: Int!, $after: String) {
  issue(id: $id) {
    comments(first: $first, after: $after) {
      nodes { id body }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/** One page of an issue's comments. */
export interface CommentsPage {
  issue?: { comments?: { nodes: { id: string; body?: string | null }[]; pageInfo: { hasNextPage: boolean; endCursor?: string | null } } } | null;
}
/** Variables of COMMENTS_QUERY. */
export type CommentsPageVars = { id: string; first: number; after?: string };

/** Fetch one page with `client` (no retry; the caller's step retries). */
export async function readCommentsPage(client: LinearClient, vars: CommentsPageVars): Promise<CommentsPage> {
  return (await client.client.rawRequest<CommentsPage, CommentsPageVars>(COMMENTS_QUERY, vars)).data ?? {};
}

/** The id of the issue's comment carrying `key`, paging through every comment (up to 100,000). */
export async function findKeyedComment(
  fetchPage: (vars: CommentsPageVars) => Promise<CommentsPage>,
  issueId: string,
  key: string,
): Promise<string | undefined> {
  let after: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const comments = (await fetchPage({ id: issueId, first: PAGE_SIZE, ...(after ? { after } : {}) })).issue?.comments;
    const hit = comments?.nodes.find((n) => typeof n.body === 'string' && hasCommentKey(n.body, key));
    if (hit) return hit.id;
    if (!comments?.pageInfo.hasNextPage || !comments.pageInfo.endCursor) return undefined;
    after = comments.pageInfo.endCursor;
  }
  return undefined;
}
