// Signing in to the web app `canopy up` serves beside MCP, in a real browser: the one-time link sets
// an HttpOnly, SameSite=Strict session cookie and lands on a URL without the token; without a session
// nothing but the sign-in page is served; a state-changing request from another origin is refused;
// `canopy web --print-link` gives a fresh link to the running server, signing out ends the session for good,
// and `canopy web` serves the app too.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { freePort } from '../../src/temporal/free-port';
import { CONTENT_SECURITY_POLICY } from '../../src/web/responses';
import { hasChromium, launchBrowser, NO_CHROMIUM, openPage, plainRequest, sessionCookie, signInLinkIn } from '../helpers/browser';
import { upEnv } from '../helpers/canopy-up';
import { runCanopy, spawnCanopy, waitForOutput, type CanopyProcess } from '../helpers/processes';

describe('signing in to the web app', { skip: hasChromium ? false : NO_CHROMIUM }, () => {
  let up: CanopyProcess;
  let home: string;
  let env: NodeJS.ProcessEnv;
  let origin: string;
  let browser: Browser;

  before(async () => {
    ({ home, env } = await upEnv());
    origin = `http://127.0.0.1:${env.CANOPY_MCP_PORT}`;
    up = spawnCanopy(['up'], env);
    await waitForOutput(up, /canopy is up/, 120_000);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    up.child.kill('SIGINT');
    assert.equal(await up.exited, 0, up.output());
  });

  it('opens a session with the printed link, lands on a URL without the token, and the link is then used up', async () => {
    const link = signInLinkIn(up.output());
    assert.ok(link.startsWith(`${origin}/sign-in?token=`), link);
    const page = await openPage(browser);
    const answer = await page.goto(link);
    assert.equal(answer?.status(), 200);
    assert.equal(page.url(), `${origin}/`);
    assert.equal(answer?.headers()['content-security-policy'], CONTENT_SECURITY_POLICY);
    await page.waitForSelector('.overview');
    await page.waitForFunction("document.body.innerText.includes('No loops yet')");
    const cookie = (await page.browserContext().cookies()).find((c) => c.name === `canopy_session_${env.CANOPY_MCP_PORT}`);
    assert.ok(cookie, 'the session cookie is set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(cookie.secure, false, 'plain http on loopback: a Secure cookie would never be sent back');
    assert.equal(await page.evaluate('document.cookie'), '', 'scripts cannot read the session');
    assert.deepEqual(page.problems, []);

    const again = await plainRequest(link);
    assert.equal(again.status, 403);
    assert.match(again.body, /used up or expired/);
    assert.equal(again.headers['set-cookie'], undefined);
    await page.close();
  });

  it('serves nothing but the sign-in page to a request without a session', async () => {
    for (const path of ['/', '/app.js', '/api/overview', '/api/inbox', '/api/events', '/anything']) {
      const answer = await plainRequest(`${origin}${path}`);
      assert.equal(answer.status, 401, path);
      assert.doesNotMatch(answer.body, /<script/, path);
    }
    const page = await plainRequest(`${origin}/`);
    assert.match(page.body, /canopy web --print-link/);
    const forged = await plainRequest(`${origin}/api/overview`, { headers: { Cookie: `canopy_session_${env.CANOPY_MCP_PORT}=forged` } });
    assert.equal(forged.status, 401);
    assert.match(forged.body, /Sign in first/);
    const wrongToken = await plainRequest(`${origin}/sign-in?token=${'a'.repeat(43)}`);
    assert.equal(wrongToken.status, 403);
  });

  it('refuses a state-changing request whose Origin is not the app, and a Host it does not answer to', async () => {
    const page = await openPage(browser);
    const link = (await runCanopy(env, 'web', '--print-link')).stdout.trim();
    assert.ok(link.startsWith(`${origin}/sign-in?token=`), link);
    await page.goto(link);
    assert.equal(page.url(), `${origin}/`);
    const cookie = await sessionCookie(page, origin);
    const post = (headers: Record<string, string>) =>
      plainRequest(`${origin}/api/loops/no-such-loop/run`, { method: 'POST', headers: { Cookie: cookie, ...headers }, body: '{}' });

    const foreign = await post({ Origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.match(foreign.body, /Origin 'https:\/\/evil.example' is refused/);
    const otherPort = await post({ Origin: 'http://127.0.0.1:1' });
    assert.equal(otherPort.status, 403);
    assert.match(otherPort.body, /must come from this server's own page/);
    const none = await post({});
    assert.equal(none.status, 403);
    assert.match(none.body, /Origin \(missing\) is refused/);
    const rebound = await plainRequest(`${origin}/api/overview`, { headers: { Cookie: cookie, Host: 'evil.example' } });
    assert.equal(rebound.status, 403);

    // From the app's own page the request reaches the service, which answers as the CLI does.
    const ownAnswer = await page.evaluate(async () => {
      const response = await fetch('/api/loops/no-such-loop/run', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      return { status: response.status, body: (await response.json()) as { message: string } };
    });
    assert.equal(ownAnswer.status, 404);
    assert.match(ownAnswer.body.message, /No loop with id 'no-such-loop'/);
    await page.close();
  });

  it('signs out: the session ends on the server, the cookie goes, the sign-in page shows, and the old cookie opens nothing', async () => {
    const page = await openPage(browser);
    await page.goto((await runCanopy(env, 'web', '--print-link')).stdout.trim());
    await page.waitForSelector('.sign-out');
    const cookie = await sessionCookie(page, origin);
    const sessionFile = path.join(home, 'web-sessions', createHash('sha256').update(cookie.split('=')[1]).digest('hex'));
    assert.ok(existsSync(sessionFile), 'the session is kept in the home');
    const signOut = (method: string, headers: Record<string, string>) =>
      plainRequest(`${origin}/api/sign-out`, { method, headers: { Cookie: cookie, ...headers } });

    // Refused like any other state change from elsewhere, and it must be a POST: the session stays.
    const foreign = await signOut('POST', { Origin: 'https://evil.example' });
    assert.equal(foreign.status, 403);
    assert.match(foreign.body, /Origin 'https:\/\/evil.example' is refused/);
    const read = await signOut('GET', {});
    assert.equal(read.status, 405);
    assert.match(read.body, /answers POST/);
    assert.equal(read.headers['set-cookie'], undefined);
    assert.ok(existsSync(sessionFile), 'a refused sign-out leaves the session');
    assert.equal((await plainRequest(`${origin}/api/overview`, { headers: { Cookie: cookie } })).status, 200);

    await Promise.all([page.waitForNavigation(), page.click('.sign-out')]);
    await page.waitForSelector('main.sign-in');
    assert.equal(existsSync(sessionFile), false, 'the session is gone from the home');
    assert.equal((await page.browserContext().cookies()).filter((c) => c.name === `canopy_session_${env.CANOPY_MCP_PORT}`).length, 0);
    const replayed = await plainRequest(`${origin}/api/overview`, { headers: { Cookie: cookie } });
    assert.equal(replayed.status, 401);
    assert.match(replayed.body, /Sign in first/);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it('serves the app from canopy web too, whose link works there and nowhere else, and refuses a bad port', async () => {
    const port = await freePort();
    const web = spawnCanopy(['web', '--port', String(port)], env);
    try {
      await waitForOutput(web, /canopy web is up/);
      const link = signInLinkIn(web.output());
      assert.ok(link.startsWith(`http://127.0.0.1:${port}/sign-in?token=`), link);
      const printed = (await runCanopy(env, 'web', '--print-link', '--port', String(port))).stdout.trim();
      assert.ok(printed.startsWith(`http://127.0.0.1:${port}/sign-in?token=`), printed);
      const page = await openPage(browser);
      await page.goto(printed);
      assert.equal(page.url(), `http://127.0.0.1:${port}/`);
      await page.waitForSelector('.overview');
      // Each server keeps its own sessions: the cookie of this one opens nothing on canopy up's.
      const cookie = await sessionCookie(page, `http://127.0.0.1:${port}`);
      assert.equal((await plainRequest(`${origin}/api/overview`, { headers: { Cookie: cookie } })).status, 401);
      await page.close();
    } finally {
      web.child.kill('SIGINT');
    }
    assert.equal(await web.exited, 0, web.output());
    assert.match(web.output(), /Stopped\./);

    const badPort = await runCanopy(env, 'web', '--port', 'eighty');
    assert.notEqual(badPort.status, 0);
    assert.match(badPort.stderr, /--port: 'eighty' is not a port; give a whole number from 0 to 65535/);
    const badLink = await runCanopy(env, 'web', '--print-link', '--port', '70000');
    assert.notEqual(badLink.status, 0);
    assert.match(badLink.stderr, /--port: '70000' is not a port/);
  });
});
