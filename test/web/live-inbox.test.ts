// The web app live, in a real browser over loops the dev server runs: the loop page's graph follows the
// node states without a reload (within 1 s of the store recording them), an approval that waits shows
// waiting with the way to the inbox, a dropped event stream comes back by itself when the server does,
// the inbox (one tap from the overview) shows the approval's message, refuses a rejection with a blank
// comment with the message the CLI gives, and approving lets the loop go on to its end; a running node
// run's page follows its output as it lands and its end.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { hasChromium, launchBrowser, NO_CHROMIUM, textOf } from '../helpers/browser';
import { childEnv, useEngineHarness } from '../helpers/engine';
import { tempGitRepo } from '../helpers/git';
import { approval, check, linked, loopWithSpecs, runsOf } from '../helpers/loops';
import { runCanopy } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';
import { startWebApp, type WebApp } from '../helpers/web-app';

/** When the page first showed each vertex in each state, by the page's clock (the machine's), and the live stream's states in turn. */
const RECORD_STATES = `(() => {
  window.__seen = {};
  window.__live = [];
  const note = () => {
    if (window.__live.at(-1) !== document.body.dataset.live) window.__live.push(document.body.dataset.live);
    for (const vertex of document.querySelectorAll('[data-vertex]')) {
      const key = vertex.dataset.vertex + ':' + vertex.dataset.state;
      window.__seen[key] ??= Date.now();
    }
  };
  new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true });
  note();
})()`;

describe('the web app live, and its inbox', { skip: hasChromium ? false : NO_CHROMIUM }, () => {
  const engine = useEngineHarness();
  let web: WebApp;
  let browser: Browser;

  before(async () => {
    web = await startWebApp(engine.config);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await web?.stop();
  });

  it('follows a running loop, comes back after a dropped stream, and approves from the inbox', { timeout: 180_000 }, async () => {
    const { ctx } = engine;
    const loopId = await loopWithSpecs(
      ctx,
      tempGitRepo(),
      linked(
        check('implement', 1, 'sleep 2 && echo new > feature.txt'),
        approval('review', 2, { message_template: 'Ship {{spec_name}}? <b>yes</b>' }),
        check('commit', 3, 'sleep 1 && echo committed'),
      ),
      [{ name: 'feature' }],
    );
    const page = await web.signedInPage(browser);
    await page.goto(`${web.origin}/#/loops/${loopId}`);
    await page.waitForSelector('[data-vertex="implement"]');
    await page.evaluate(RECORD_STATES);

    await engine.withWorker(async () => {
      await startLoopRun(ctx, loopId);
      await page.waitForSelector('[data-vertex="implement"][data-state="running"]');
      await page.waitForSelector('[data-loop-status="waiting"] ', { timeout: 60_000 });
      // The approval waits for a person: its vertex says so and opens the inbox, as does the line above the graph.
      await page.waitForSelector('[data-vertex="review"][data-state="waiting"]');
      assert.equal(await page.$eval('a:has(> [data-vertex="review"])', (link) => link.getAttribute('href')), '#/inbox');
      assert.match((await textOf(page, '[data-waiting="review"]'))!, /review waits for a person/);
      const implemented = (await runsOf(ctx, loopId)).find((run) => run.node_name === 'implement')!;
      const seen = (await page.evaluate('window.__seen')) as Record<string, number>;
      const delay = seen['implement:pass'] - Date.parse(implemented.ended_at!);
      assert.ok(delay <= 1000, `the page showed implement's end ${delay} ms after it was recorded`);

      // The server goes down and comes back: the page reconnects by itself, with no reload (the recorder is still there).
      await web.restart();
      await page
        .waitForFunction("window.__live.join() === 'open,reconnecting,open'", { timeout: 10_000 })
        .catch(async (error: Error) =>
          assert.fail(`${error.message}: the stream went ${String(await page.evaluate('window.__live.join()'))}`),
        );

      // One tap from the overview to the inbox.
      await page.goto(`${web.origin}/#/`);
      await page.waitForSelector('.inbox-link[data-count="1"]');
      await page.click('.inbox-link');
      await page.waitForSelector('[data-approval]');
      assert.equal((await textOf(page, '[data-approval] .message'))?.trim(), 'Ship feature? <b>yes</b>');

      const cli = await runCanopy(childEnv(engine.config), 'reject', loopId, '--comment', '  ');
      assert.notEqual(cli.status, 0);
      await page.type('[data-approval] textarea', '  ');
      await page.click('[data-decision="reject"]');
      await page.waitForSelector('[data-approval] .refused');
      const refusal = (await textOf(page, '[data-approval] .refused'))!;
      assert.match(refusal, /comment: must not be empty/);
      assert.ok(cli.stderr.includes(refusal), `the CLI says the same:\n${cli.stderr}\nthe page:\n${refusal}`);

      await page.focus('[data-approval] textarea');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Backspace');
      await page.click('[data-decision="approve"]');
      await page.waitForFunction("document.body.innerText.includes('No approval is waiting.')");
      await page.goto(`${web.origin}/#/loops/${loopId}`);
      await page.evaluate(RECORD_STATES);
      await page.waitForSelector('[data-vertex="commit"][data-state="pass"]', { timeout: 60_000 });
      await waitForLoopRun(ctx, loopId);
    });
    await page.waitForSelector('[data-loop-status="completed"]');
    const review = (await runsOf(ctx, loopId)).find((run) => run.node_name === 'review')!;
    assert.match(review.decided_by ?? '', /\(web\)$/);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("follows a running node run's page: its output as it lands, then its end, without a reload", { timeout: 120_000 }, async () => {
    const { ctx } = engine;
    const loopId = await loopWithSpecs(
      ctx,
      tempGitRepo(),
      linked(check('slow', 1, 'echo first-line; sleep 4; echo second-line; sleep 4; echo last-line')),
      [{ name: 'slowly' }],
    );
    const page = await web.signedInPage(browser);
    await engine.withWorker(async () => {
      await startLoopRun(ctx, loopId);
      const run = await waitUntil('the node run to start', async () => (await runsOf(ctx, loopId)).find((r) => r.node_name === 'slow'));
      await page.goto(`${web.origin}/#/runs/${run.id}`);
      await page.waitForSelector('[data-run-status="running"]');
      await page.evaluate('window.__samePage = true');
      assert.match((await textOf(page, '.facts'))!, /still running/);
      // The second line lands seconds after the page opened, while the run still runs.
      await page.waitForFunction(
        `document.querySelector('[data-text="stdout"]')?.textContent.includes('second-line') && document.querySelector('[data-run-status="running"]')`,
        { timeout: 30_000 },
      );
      await page.waitForSelector('[data-run-status="pass"]', { timeout: 30_000 });
      await waitForLoopRun(ctx, loopId);
    });
    assert.match((await textOf(page, '[data-text="stdout"]'))!, /first-line\nsecond-line\nlast-line/);
    assert.doesNotMatch((await textOf(page, '.facts'))!, /still running/);
    assert.equal(await page.evaluate('window.__samePage'), true, 'the page was not reloaded');
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it('shows a refused action with the message the CLI gives', async () => {
    const loopId = await loopWithSpecs(engine.ctx, tempGitRepo(), linked(check('only', 1, 'true')), []);
    const page = await web.signedInPage(browser);
    await page.goto(`${web.origin}/#/loops/${loopId}`);
    await page.waitForSelector('[data-action="pause"]');
    await page.click('[data-action="pause"]');
    await page.waitForSelector('.actions .refused');
    const refusal = (await textOf(page, '.actions .refused'))!;
    const cli = await runCanopy(childEnv(engine.config), 'loop', 'pause', loopId);
    assert.notEqual(cli.status, 0);
    assert.ok(refusal.length > 10 && cli.stderr.includes(refusal), `the CLI:\n${cli.stderr}\nthe page:\n${refusal}`);
    await page.close();
  });
});
