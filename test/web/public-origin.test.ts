// The web app behind a reverse proxy, with `--public-origin`: requests whose Host and Origin are the
// public origin's are accepted beside loopback ones and the printed link uses it; any other origin is
// still refused; a value that is not an origin is refused naming the option, and nothing starts. The
// browser reaches the public name through chromium's own resolver, as it would through a proxy.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { freePort } from '../../src/temporal/free-port';
import { hasChromium, launchBrowser, NO_CHROMIUM, openPage, plainRequest } from '../helpers/browser';
import { upEnv } from '../helpers/canopy-up';
import { runCanopy, spawnCanopy, waitForOutput, type CanopyProcess } from '../helpers/processes';

const PUBLIC_NAME = 'canopy.example.com';

describe('the web app at a public origin', { skip: hasChromium ? false : NO_CHROMIUM }, () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  let port: number;
  let web: CanopyProcess;
  let browser: Browser;
  /** What the browser opens: the public name on the server's port, which chromium resolves to loopback. */
  let publicOrigin: string;

  before(async () => {
    ({ home, env } = await upEnv());
    port = await freePort();
    publicOrigin = `http://${PUBLIC_NAME}:${port}`;
    web = spawnCanopy(['web', '--port', String(port), '--public-origin', `${publicOrigin}/`], env);
    await waitForOutput(web, /canopy web is up/);
    browser = await launchBrowser([`--host-resolver-rules=MAP ${PUBLIC_NAME} 127.0.0.1`]);
  });

  after(async () => {
    await browser?.close();
    web?.child.kill('SIGINT');
    if (web) assert.equal(await web.exited, 0, web.output());
  });

  it('prints its links at the public origin, signs in there, and acts from its page', async () => {
    const link = /^Web: (\S+)$/m.exec(web.output())?.[1] ?? '';
    assert.ok(link.startsWith(`${publicOrigin}/sign-in?token=`), link);
    const printed = (await runCanopy(env, 'web', '--print-link')).stdout.trim();
    assert.ok(printed.startsWith(`${publicOrigin}/sign-in?token=`), printed);

    const page = await openPage(browser);
    await page.goto(link);
    assert.equal(page.url(), `${publicOrigin}/`);
    await page.waitForFunction("document.body.innerText.includes('No loops yet')");
    const answer = await page.evaluate(async () => {
      const response = await fetch('/api/loops/no-such-loop/run', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
      return { status: response.status, body: (await response.json()) as { message: string } };
    });
    assert.equal(answer.status, 404, 'the request reached the service');
    assert.match(answer.body.message, /No loop with id 'no-such-loop'/);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it('accepts the https origin a TLS proxy sends, and refuses every other origin and host', async () => {
    // A second server, at the https origin a TLS proxy serves, spoken to as the proxy speaks: the public Host passed on.
    const tlsPort = await freePort();
    const proxied = spawnCanopy(['web', '--port', String(tlsPort), '--public-origin', `HTTPS://${PUBLIC_NAME.toUpperCase()}`], env);
    try {
      await waitForOutput(proxied, /canopy web is up/);
      const link = /^Web: (\S+)$/m.exec(proxied.output())![1];
      assert.ok(link.startsWith(`https://${PUBLIC_NAME}/sign-in?token=`), link);
      const token = new URL(link).searchParams.get('token')!;
      const server = `http://127.0.0.1:${tlsPort}`;
      const asProxy = (pathname: string, headers: Record<string, string>, method = 'GET') =>
        plainRequest(`${server}${pathname}`, {
          method,
          headers: { Host: PUBLIC_NAME, ...headers },
          body: method === 'POST' ? '{}' : undefined,
        });

      const signIn = await asProxy(`/sign-in?token=${token}`, {});
      assert.equal(signIn.status, 303);
      assert.match(String(signIn.headers['set-cookie']), /; Secure/, 'a session opened over TLS keeps its cookie to TLS');
      const cookie = String(signIn.headers['set-cookie']).split(';')[0];
      assert.equal((await asProxy('/api/overview', { Cookie: cookie })).status, 200);
      const own = await asProxy('/api/loops/no-such-loop/run', { Cookie: cookie, Origin: `https://${PUBLIC_NAME}` }, 'POST');
      assert.equal(own.status, 404, own.body);

      const plainHttp = await asProxy('/api/loops/no-such-loop/run', { Cookie: cookie, Origin: `http://${PUBLIC_NAME}` }, 'POST');
      assert.equal(plainHttp.status, 403);
      assert.match(plainHttp.body, /Origin 'http:\/\/canopy\.example\.com' is refused/);
      const foreign = await asProxy('/api/loops/no-such-loop/run', { Cookie: cookie, Origin: 'https://evil.example' }, 'POST');
      assert.equal(foreign.status, 403);
      assert.match(foreign.body, /Origin 'https:\/\/evil.example' is refused/);
      const otherHost = await asProxy('/api/overview', { Cookie: cookie, Host: 'evil.example' });
      assert.equal(otherHost.status, 403);
      assert.match(otherHost.body, /Host 'evil.example' is refused/);
      // The public origin's page may not act on the loopback address, nor a loopback page on the public name.
      const crossed = await plainRequest(`${server}/api/loops/no-such-loop/run`, {
        method: 'POST',
        headers: { Cookie: cookie, Origin: `https://${PUBLIC_NAME}` },
        body: '{}',
      });
      assert.equal(crossed.status, 403);
      assert.match(crossed.body, /must come from this server's own page \(Origin http:\/\/127\.0\.0\.1:\d+\)/);
      const loopbackPage = await asProxy('/api/loops/no-such-loop/run', { Cookie: cookie, Origin: server }, 'POST');
      assert.equal(loopbackPage.status, 403);
      assert.match(loopbackPage.body, /must come from this server's own page \(Origin https:\/\/canopy\.example\.com\)/);
    } finally {
      proxied.child.kill('SIGINT');
      await proxied.exited;
    }
  });

  it('refuses a value that is not an origin, naming the option and the fix, and starts nothing', async () => {
    const recorded = path.join(home, 'web-address');
    const servedAt = () => (existsSync(recorded) ? readFileSync(recorded, 'utf8') : null);
    const before = servedAt();
    for (const [args, extra, named] of [
      [['web', '--port', '0', '--public-origin', 'https://canopy.example.com/canopy'], {}, '--public-origin'],
      [['web', '--port', '0', '--public-origin', 'canopy.example.com'], {}, '--public-origin'],
      [['up', '--public-origin', 'ftp://canopy.example.com'], {}, '--public-origin'],
      [['web', '--port', '0'], { CANOPY_PUBLIC_ORIGIN: 'https://user:secret@canopy.example.com' }, 'CANOPY_PUBLIC_ORIGIN'],
    ] as const) {
      const refused = await runCanopy({ ...env, ...extra }, ...args);
      assert.notEqual(refused.status, 0, args.join(' '));
      assert.ok(refused.stderr.includes(`${named} '`), refused.stderr);
      assert.match(refused.stderr, /give the origin the browser opens, https:\/\/ or http:\/\/ with the host and at most a port/);
      assert.doesNotMatch(refused.stdout, /is up|Temporal:|Web:/);
    }
    assert.equal(servedAt(), before, 'no server recorded where it serves');
    assert.equal(existsSync(path.join(home, 'up.lock')), false, 'canopy up took no hold of the home');
  });
});
