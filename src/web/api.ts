// The web app's API: each route one call of a client/ service, the same the CLI and MCP make.
import os from 'node:os';
import { CanopyError } from '../domain/errors';
import type { ClientContext } from '../client/context';
import { decideApproval, listInbox, type DecideApprovalRequest } from '../client/approvals-service';
import { sendFeedback, type LoopFeedbackRequest } from '../client/feedback-service';
import { loopPicture } from '../client/loop-picture-service';
import { getLoop } from '../client/loops-service';
import { getRun, listRunPage, runChanges } from '../client/node-runs-service';
import { loopsOverview } from '../client/overview-service';
import { resetLoop } from '../client/reset-service';
import { spendReport } from '../client/spend-service';
import { continueLoop, pauseLoop, startLoopRun, stopLoop } from '../client/runs-service';

/** What the routes get: the path's captured parts, the query, and the parsed JSON body of a POST. */
export interface ApiCall {
  params: string[];
  query: URLSearchParams;
  body: unknown;
}

interface ApiRoute {
  method: 'GET' | 'POST';
  path: RegExp;
  answer(ctx: ClientContext, call: ApiCall): Promise<unknown>;
}

/** Runs per page of a loop's node runs; older ones page on with the cursor. */
export const RUNS_PAGE = 50;

/** Who acts from the browser, as a decision or a remark records it. */
const webUser = () => `${os.userInfo().username} (web)`;

const ID = '([A-Za-z0-9_-]+)';

const LOOP_ACTIONS: Record<string, (ctx: ClientContext, loopId: string) => Promise<unknown>> = {
  run: startLoopRun,
  pause: pauseLoop,
  retry: (ctx, loopId) => continueLoop(ctx, loopId, 'retry'),
  skip: (ctx, loopId) => continueLoop(ctx, loopId, 'skip'),
  stop: (ctx, loopId) => stopLoop(ctx, loopId),
  reset: (ctx, loopId) => resetLoop(ctx, loopId),
};

const ROUTES: ApiRoute[] = [
  {
    method: 'GET',
    path: /^\/api\/overview$/,
    answer: (ctx, { query }) => loopsOverview(ctx, { include_archived: query.get('archived') === '1' }),
  },
  {
    method: 'GET',
    path: new RegExp(`^/api/loops/${ID}$`),
    answer: async (ctx, { params: [loopId] }) => {
      const [loop, picture] = await Promise.all([getLoop(ctx, loopId), loopPicture(ctx, loopId)]);
      return { loop, picture };
    },
  },
  {
    method: 'GET',
    path: new RegExp(`^/api/loops/${ID}/runs$`),
    answer: (ctx, { params: [loopId], query }) =>
      listRunPage(ctx, { loop_id: loopId, limit: RUNS_PAGE, before: query.get('before') ?? undefined }),
  },
  { method: 'GET', path: new RegExp(`^/api/runs/${ID}$`), answer: (ctx, { params: [runId] }) => getRun(ctx, runId) },
  { method: 'GET', path: new RegExp(`^/api/runs/${ID}/changes$`), answer: (ctx, { params: [runId] }) => runChanges(ctx, runId) },
  { method: 'GET', path: /^\/api\/spend$/, answer: (ctx) => spendReport(ctx) },
  { method: 'GET', path: /^\/api\/inbox$/, answer: async (ctx) => ({ approvals: await listInbox(ctx) }) },
  {
    method: 'POST',
    path: /^\/api\/approvals$/,
    answer: (ctx, { body }) => decideApproval(ctx, { ...bodyObject(body), by: webUser() } as DecideApprovalRequest),
  },
  {
    method: 'POST',
    path: new RegExp(`^/api/loops/${ID}/feedback$`),
    answer: (ctx, { params: [loopId], body }) =>
      sendFeedback(ctx, { ...bodyObject(body), loop_id: loopId, by: webUser() } as LoopFeedbackRequest),
  },
  {
    method: 'POST',
    path: new RegExp(`^/api/loops/${ID}/(${Object.keys(LOOP_ACTIONS).join('|')})$`),
    answer: (ctx, { params: [loopId, action] }) => LOOP_ACTIONS[action](ctx, loopId),
  },
];

export type ApiAnswer = { status: number; body: unknown };

/** The answer to an API request, a CanopyError as the refusal the CLI would print; null when no route has the path. */
export async function answerApi(
  ctx: ClientContext,
  method: string,
  path: string,
  call: Omit<ApiCall, 'params'>,
): Promise<ApiAnswer | null> {
  const routes = ROUTES.filter((route) => route.path.test(path));
  if (routes.length === 0) return null;
  const route = routes.find((candidate) => candidate.method === method);
  if (!route)
    return { status: 405, body: { error: 'method_not_allowed', message: `${path} answers ${routes.map((r) => r.method).join(', ')}.` } };
  try {
    return { status: 200, body: await route.answer(ctx, { ...call, params: route.path.exec(path)!.slice(1) }) };
  } catch (error) {
    if (error instanceof CanopyError)
      return { status: REFUSAL_STATUS[error.code], body: { error: error.code, message: error.message, issues: error.issues } };
    throw error;
  }
}

const REFUSAL_STATUS: Record<CanopyError['code'], number> = { invalid_input: 400, not_found: 404, conflict: 409, refused: 409 };

/** A JSON body must be an object; the service validates its fields (the casts above say only that it will). */
function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new CanopyError('invalid_input', 'The request body must be a JSON object; nothing was changed.');
  return body as Record<string, unknown>;
}
