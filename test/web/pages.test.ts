// The web app's pages in a real browser over a loop the dev server ran: the overview lists it, the
// loop page lays out its graph (the ensemble one box with its members, the loop-back edge apart) and
// pages through its node runs past the newest 200, pans and zooms it on a phone, the spend page charts
// the agents' spend, and a node run's page shows its diff and an agent's output holding markup as text,
// with no script of it run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { insertNodeRun } from '../../src/store/node-runs-repository';
import { hasChromium, launchBrowser, NO_CHROMIUM, textOf, textsOf } from '../helpers/browser';
import { useEngineHarness } from '../helpers/engine';
import { tempGitRepo } from '../helpers/git';
import { agent, check, fakeReviewers, loopWithSpecs, runsOf, runToEnd } from '../helpers/loops';
import { startWebApp, type WebApp } from '../helpers/web-app';

const MARKUP = `<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2"><b>bold</b>`;
const OLDER_RUNS = 230;

describe('the web app pages', { skip: hasChromium ? false : NO_CHROMIUM }, () => {
  const engine = useEngineHarness();
  let web: WebApp;
  let browser: Browser;
  let loopId: string;
  /** The node runs of the loop's one run, before the older history is added. */
  let ranRuns: number;

  before(async () => {
    const workdir = tempGitRepo();
    loopId = await loopWithSpecs(
      engine.ctx,
      workdir,
      {
        nodes: [
          agent('implement', 1, `@write feature.txt hello from the agent\n@print ${MARKUP}`),
          check('tests', 2, `git add -A && git commit -qm feature && echo '${MARKUP}'`),
        ],
        edges: [{ source: 'tests', target: 'implement', condition: 'fail', type: 'loopback' }],
        ensembles: [fakeReviewers(0)],
      },
      [{ name: 'greet' }],
    );
    await engine.withWorker(() => runToEnd(engine.ctx, loopId));
    const ran = await runsOf(engine.ctx, loopId);
    ranRuns = ran.length;
    // Older history, so the list pages past the newest 200.
    const oldest = Date.parse(ran[0].started_at);
    for (let index = 0; index < OLDER_RUNS; index++)
      await insertNodeRun(engine.ctx.db, {
        loop_id: loopId,
        node_name: 'implement',
        kind: 'agent',
        round: 1,
        status: 'pass',
        outcome: 'pass',
        started_at: new Date(oldest - (OLDER_RUNS - index) * 1000).toISOString(),
        ended_at: new Date(oldest - (OLDER_RUNS - index) * 1000 + 500).toISOString(),
      });
    web = await startWebApp(engine.config);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await web?.stop();
  });

  it('lists the loop on the overview with its status, latest node and spend, and filters it', async () => {
    const page = await web.signedInPage(browser);
    await page.waitForSelector(`[data-loop="${loopId}"]`);
    const text = await textOf(page, `[data-loop="${loopId}"]`);
    assert.match(text!, /engine test/);
    assert.match(text!, /done|completed/);
    assert.match(text!, /tests · round 1 · pass\b/);
    await page.type('.filter', 'no such loop');
    await page.waitForFunction("document.body.innerText.includes('No loop matches the filter.')");
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it('lays out the graph with dagre: the ensemble one box with its members, the loop-back edge drawn apart', async () => {
    const page = await web.signedInPage(browser);
    await page.goto(`${web.origin}/#/loops/${loopId}`);
    await page.waitForSelector('svg.graph [data-vertex="tests"]');
    const graph = await page.evaluate(`(() => {
      const box = (name) => document.querySelector('[data-vertex="' + name + '"]').getBoundingClientRect();
      return {
        implement: box('implement').top, reviewers: box('reviewers').top, tests: box('tests').top,
        members: [...document.querySelectorAll('[data-vertex="reviewers"] [data-member]')].map((m) => m.textContent),
        states: Object.fromEntries([...document.querySelectorAll('[data-vertex]')].map((v) => [v.dataset.vertex, v.dataset.state])),
        loopbacks: [...document.querySelectorAll('path.loopback')].map((p) => p.dataset.loopback),
        flows: document.querySelectorAll('path.flow').length,
      };
    })()`);
    const laid = graph as {
      implement: number;
      reviewers: number;
      tests: number;
      members: string[];
      states: Record<string, string>;
      loopbacks: string[];
      flows: number;
    };
    assert.ok(laid.implement < laid.reviewers && laid.reviewers < laid.tests, JSON.stringify(laid));
    assert.deepEqual(laid.members, ['fake/fast', 'fake/slow']);
    assert.deepEqual(laid.states, { implement: 'pass', reviewers: 'pass', tests: 'pass' });
    assert.deepEqual(laid.loopbacks, ['tests->implement']);
    assert.equal(laid.flows, 2);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it('lists the node runs newest first and pages past the newest 200', async () => {
    const page = await web.signedInPage(browser);
    await page.goto(`${web.origin}/#/loops/${loopId}`);
    await page.waitForSelector('.run-list li');
    const newest = await runsOf(engine.ctx, loopId);
    const count = () => page.$$eval('.run-list li', (items) => items.length);
    assert.equal(await count(), 50);
    while (await page.$('button.older')) {
      const before = await count();
      await page.click('button.older');
      await page.waitForFunction(`document.querySelectorAll('.run-list li').length > ${before}`);
    }
    const shown = await page.$$eval('.run-list li', (items) => items.map((item) => item.getAttribute('data-run')));
    assert.equal(shown.length, ranRuns + OLDER_RUNS);
    assert.equal(shown[0], newest[newest.length - 1].id, 'the newest first');
    assert.equal(new Set(shown).size, shown.length, 'no run twice');
    await page.close();
  });

  it("draws the agents' spend per day with uPlot, and lists it per loop and per spec", async () => {
    const page = await web.signedInPage(browser);
    await page.goto(`${web.origin}/#/spend`);
    await page.waitForSelector('.chart .uplot canvas');
    assert.match((await textOf(page, '.chart .u-legend'))!, /cost \(\$\).*tokens/s);
    // The implementer and the two reviewers are the agent runs; checks spend nothing.
    const loopRows = await textsOf(page, 'table.per-loop tbody tr');
    assert.equal(loopRows.length, 1);
    assert.match(loopRows[0], /^engine test\$[\d.]+\S*3$/);
    assert.deepEqual(await textsOf(page, 'table.per-spec tbody tr td:first-child'), ['greet']);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it('shows a phone (390x844) one column: the overview, the inbox one tap away, the graph as wide as the screen', async () => {
    const page = await web.signedInPage(browser, { width: 390, height: 844 });
    await page.waitForSelector(`[data-loop="${loopId}"]`);
    const overview = (await page.evaluate(`(() => {
      const line = document.querySelector('[data-loop]').getBoundingClientRect();
      const inbox = document.querySelector('.inbox-link').getBoundingClientRect();
      const parts = [...document.querySelectorAll('[data-loop] > *')].map((part) => part.getBoundingClientRect());
      return { page: document.documentElement.scrollWidth, line: [line.left, line.right], inbox: inbox.bottom, rows: new Set(parts.map((p) => Math.round(p.top))).size };
    })()`)) as { page: number; line: number[]; inbox: number; rows: number };
    assert.ok(overview.page <= 390, `the page is ${overview.page} px wide`);
    assert.ok(overview.line[0] >= 0 && overview.line[1] <= 390, `the loop's line spans ${overview.line.join('..')}`);
    assert.ok(overview.rows >= 3, `the loop's line stacks its parts (${overview.rows} rows)`);
    assert.ok(overview.inbox <= 844, 'the inbox link shows without scrolling');

    await page.goto(`${web.origin}/#/loops/${loopId}`);
    await page.waitForSelector('svg.graph [data-vertex]');
    const graph = (await page.evaluate(`(() => {
      const svg = document.querySelector('svg.graph').getBoundingClientRect();
      return { left: svg.left, right: svg.right, page: document.documentElement.scrollWidth };
    })()`)) as { left: number; right: number; page: number };
    assert.ok(graph.left >= 0 && graph.right <= 390 && graph.page <= 390, JSON.stringify(graph));
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it('pans the graph by a drag and a finger, zooms it by its buttons, the wheel and a pinch, and still opens a vertex on a tap', async () => {
    const page = await web.signedInPage(browser, { width: 390, height: 844 });
    await page.goto(`${web.origin}/#/loops/${loopId}`);
    await page.waitForSelector('svg.graph [data-vertex]');
    const viewBox = async () =>
      String(await page.evaluate(`document.querySelector('svg.graph').getAttribute('viewBox')`))
        .split(' ')
        .map(Number);
    const zoom = async () => Number(await page.evaluate(`document.querySelector('.zoom').dataset.zoom`));
    const whole = await viewBox();
    const svg = (await page.evaluate(`(() => {
      const rect = document.querySelector('svg.graph').getBoundingClientRect();
      return { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 };
    })()`)) as { x: number; y: number };
    assert.equal(await zoom(), 1);

    // A drag from the middle of the graph (on a vertex or not) moves the view against it, and opens nothing.
    await page.mouse.move(svg.x, svg.y);
    await page.mouse.down();
    await page.mouse.move(svg.x - 60, svg.y - 40, { steps: 6 });
    await page.mouse.up();
    const dragged = await viewBox();
    assert.ok(dragged[0] > whole[0] && dragged[1] > whole[1], `dragged left and up: ${whole.join(' ')} -> ${dragged.join(' ')}`);
    assert.deepEqual(dragged.slice(2), whole.slice(2), 'a drag keeps the scale');
    assert.equal(new URL(page.url()).hash, `#/loops/${loopId}`);

    await page.click('[data-zoom-by="in"]');
    await page.waitForFunction(`document.querySelector('.zoom').dataset.zoom === '1.50'`);
    assert.ok(Math.abs((await viewBox())[2] - whole[2] / 1.5) < 0.01, 'the view is a 1.5th of the whole');
    await page.click('[data-zoom-by="out"]');
    await page.waitForFunction(`document.querySelector('.zoom').dataset.zoom === '1.00'`);
    await page.click('[data-zoom-by="fit"]');
    assert.deepEqual(await viewBox(), whole);

    await page.mouse.move(svg.x, svg.y);
    await page.mouse.wheel({ deltaY: -200 });
    await page.waitForFunction(`Number(document.querySelector('.zoom').dataset.zoom) > 1.2`);
    await page.click('[data-zoom-by="fit"]');

    // Two fingers spreading apart zoom in; one finger pans.
    const cdp = await page.createCDPSession();
    const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', points: { x: number; y: number }[]) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map((point, id) => ({ ...point, id })) });
    await touch('touchStart', [
      { x: svg.x - 20, y: svg.y },
      { x: svg.x + 20, y: svg.y },
    ]);
    for (let step = 1; step <= 5; step++)
      await touch('touchMove', [
        { x: svg.x - 20 - step * 10, y: svg.y },
        { x: svg.x + 20 + step * 10, y: svg.y },
      ]);
    await touch('touchEnd', []);
    await page.waitForFunction(`Number(document.querySelector('.zoom').dataset.zoom) > 1.5`);
    const pinched = await viewBox();
    await touch('touchStart', [{ x: svg.x, y: svg.y }]);
    for (let step = 1; step <= 5; step++) await touch('touchMove', [{ x: svg.x + step * 10, y: svg.y + step * 6 }]);
    await touch('touchEnd', []);
    const panned = await viewBox();
    assert.ok(panned[0] < pinched[0] && panned[1] < pinched[1], `a finger pans: ${pinched.join(' ')} -> ${panned.join(' ')}`);
    assert.deepEqual(panned.slice(2), pinched.slice(2));

    // A tap on a vertex is a click: it opens the vertex's latest node run.
    await page.click('[data-zoom-by="fit"]');
    await page.click('[data-vertex="tests"] rect');
    await page.waitForFunction(`location.hash.startsWith('#/runs/')`);
    assert.deepEqual(page.problems, []);
    await page.close();
  });

  it("shows a node run's diff, and an agent's output holding markup as text, running none of it", async () => {
    const runs = await runsOf(engine.ctx, loopId);
    const implement = runs.find((run) => run.node_name === 'implement' && run.executed_platform === 'fake')!;
    const tests = runs.find((run) => run.node_name === 'tests')!;
    const page = await web.signedInPage(browser);
    await page.goto(`${web.origin}/#/runs/${tests.id}`);
    await page.waitForSelector('.changes');
    const diff = await textOf(page, '.changes');
    assert.match(diff!, /\+\+\+ b\/feature\.txt/);
    assert.match(diff!, /\+hello from the agent/);
    assert.deepEqual(await textsOf(page, '.changes .paths li'), ['feature.txt']);
    assert.equal((await textOf(page, '[data-text="stdout"]'))?.trim(), MARKUP);

    await page.goto(`${web.origin}/#/runs/${implement.id}`);
    await page.waitForSelector('[data-text="stdout"]');
    assert.match((await textOf(page, '[data-text="stdout"]'))!, /<script>window.__xss = 1<\/script><img src=x onerror=/);
    assert.equal(await page.$$eval('main img, main script, main b', (found) => found.length), 0, 'no element made of the output');
    assert.equal(await page.evaluate('window.__xss'), undefined, 'no script of the output ran');
    assert.deepEqual(page.problems, []);
    await page.close();
  });
});
