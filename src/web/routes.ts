// The web app's routes on the loopback server (`canopy up` beside /mcp, or `canopy web`): the sign-in
// link, then for a request with a session the app's files, its API and its live events. A request
// without one gets the sign-in page and nothing else; one that changes something must come from the app's page.
import type http from 'node:http';
import type { ClientContext } from '../client/context';
import { answerApi } from './api';
import { LiveFeed } from './live';
import { APP_SCRIPT, APP_SHELL, APP_STYLES, readAppFiles, SIGN_IN_PAGE } from './assets';
import { stateChangeRefusal, viaSecureOrigin } from './origin-check';
import { redirect, send, sendJson, sendRefusal } from './responses';
import { Sessions } from './sessions';
import { redeemSignInToken, SIGN_IN_PATH } from './sign-in-links';

/** A JSON body is a decision or a remark: a comment is at most 16,000 characters. */
const BODY_LIMIT = 256 * 1024;

export interface WebRoutes {
  serve: (request: http.IncomingMessage, response: http.ServerResponse) => Promise<void>;
  /** Ends the live streams, which would otherwise hold the server open. */
  close: () => Promise<void>;
}

export const EVENTS_PATH = '/api/events';
/** Ends the session (its file in the home) and clears the cookie; a state change like any other. */
export const SIGN_OUT_PATH = '/api/sign-out';

/** `publicOrigin`: where a reverse proxy serves the app (null when none), whose pages may change things too. */
export function webRoutes(ctx: ClientContext, publicOrigin: string | null = null): WebRoutes {
  const files = readAppFiles();
  const sessions = new Sessions(ctx.config.home);
  const live = new LiveFeed(ctx);
  const html = (response: http.ServerResponse, status: number, page: string) => send(response, status, 'text/html; charset=utf-8', page);

  return {
    close: () => Promise.resolve(live.close()),
    async serve(request, response) {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const port = request.socket.localPort!;
      if (url.pathname === SIGN_IN_PATH) {
        if (!redeemSignInToken(ctx.config.home, url.searchParams.get('token') ?? ''))
          return html(
            response,
            403,
            SIGN_IN_PAGE.replace('<h1>canopy</h1>', '<h1>canopy</h1><p class="refused">That link is used up or expired.</p>'),
          );
        return redirect(response, '/', { 'Set-Cookie': sessions.start(port, viaSecureOrigin(request, publicOrigin)) });
      }
      if (url.pathname === APP_STYLES) return send(response, 200, 'text/css; charset=utf-8', files.styles);
      if (!sessions.holds(request.headers, port)) {
        if (url.pathname.startsWith('/api/'))
          return sendRefusal(
            response,
            401,
            'unauthorized',
            'Sign in first, with the link canopy up or canopy web printed (or canopy web --print-link).',
          );
        return html(response, 401, SIGN_IN_PAGE);
      }
      const refusal = stateChangeRefusal(request, publicOrigin);
      if (refusal) return sendRefusal(response, 403, 'forbidden', refusal);
      if (url.pathname === APP_SCRIPT) return send(response, 200, 'text/javascript; charset=utf-8', files.script);
      if (url.pathname === EVENTS_PATH) return live.listen(request, response);
      if (url.pathname === SIGN_OUT_PATH) {
        if (request.method !== 'POST')
          return sendJson(response, 405, { error: 'method_not_allowed', message: `${SIGN_OUT_PATH} answers POST.` }, { Allow: 'POST' });
        return sendJson(
          response,
          200,
          { signed_out: true },
          { 'Set-Cookie': sessions.end(request.headers, port, viaSecureOrigin(request, publicOrigin)) },
        );
      }
      if (url.pathname.startsWith('/api/')) {
        const body = request.method === 'POST' ? await readJson(request) : undefined;
        if (body instanceof Error) return sendRefusal(response, 400, 'invalid_input', body.message);
        const answer = await answerApi(ctx, request.method ?? 'GET', url.pathname, { query: url.searchParams, body });
        if (!answer) return sendRefusal(response, 404, 'not_found', `No API route ${url.pathname}.`);
        return sendJson(response, answer.status, answer.body);
      }
      if (url.pathname === '/' && request.method === 'GET') return html(response, 200, APP_SHELL);
      return sendRefusal(response, 404, 'not_found', `Nothing at ${url.pathname}; the app is at /.`);
    },
  };
}

/** The request's JSON body, or an Error saying why it is not one. */
async function readJson(request: http.IncomingMessage): Promise<unknown> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > BODY_LIMIT) return new Error(`The request body is over ${BODY_LIMIT / 1024} KB; nothing was changed.`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text ? (JSON.parse(text) as unknown) : {};
  } catch {
    return new Error('The request body is not JSON; nothing was changed.');
  }
}
