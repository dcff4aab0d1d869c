// The web app over a large store: how long until the overview's loop list shows (500 loops, 20,000
// node runs in all), until a loop page with 2,000 node runs shows its graph and first runs, and from a
// node's end (as the store records it) to its new state on an open page; each beside a yardstick
// measured in the same rounds (`node -e 0`, and the same read through the CLI).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import puppeteer, { type Page } from 'puppeteer-core';
import type { ClientContext } from '../src/client/context';
import { importLoop } from '../src/client/export-import-service';
import { startLoopRun, waitForLoopRun } from '../src/client/runs-service';
import { createSpec } from '../src/client/specs-service';
import { CANOPY_BIN } from '../src/project';
import { insertNodeRun, listNodeRuns } from '../src/store/node-runs-repository';
import { freePort } from '../src/temporal/free-port';
import { tempGitRepo } from '../test/helpers/git';
import { spawnCanopy, waitForOutput } from '../test/helpers/processes';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

export interface WebFigures {
  overviewMs: number[];
  loopListCliMs: number[];
  bigLoopMs: number[];
  loopRunsCliMs: number[];
  yardstickMs: number[];
  /** From a node's end on record to the page showing it, per node. */
  nodeEndToPageMs: number[];
  loopInfoCliMs: number[];
}

const loopDocument = (name: string, command = 'true') => ({
  format_version: 1,
  name,
  description: '',
  nodes: [
    { name: 'build', kind: 'check', position: 1, config: { command } },
    { name: 'test', kind: 'check', position: 2, config: { command } },
  ],
  edges: [{ source: 'build', target: 'test', condition: 'pass' }],
});

/** `loops` loops, one of them with `bigRuns` node runs and the others sharing the rest of `totalRuns`; returns the big one. */
async function seed(ctx: ClientContext, loops: number, totalRuns: number, bigRuns: number, workdirs: string[]): Promise<string> {
  const ids: string[] = [];
  for (let index = 0; index < loops; index++) {
    const workdir = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-web-'));
    workdirs.push(workdir);
    ids.push((await importLoop(ctx, loopDocument(`web ${index}`), { workdir })).loop_id);
  }
  const start = Date.now() - totalRuns * 1000;
  await ctx.db.transaction().execute(async (trx) => {
    for (let index = 0; index < totalRuns; index++) {
      const loopId = index < bigRuns ? ids[0] : ids[1 + (index % (loops - 1))];
      const at = start + index * 1000;
      await insertNodeRun(trx, {
        loop_id: loopId,
        node_name: index % 2 ? 'test' : 'build',
        kind: 'check',
        round: 1,
        status: 'pass',
        outcome: 'pass',
        started_at: new Date(at).toISOString(),
        ended_at: new Date(at + 500).toISOString(),
      });
    }
  });
  return ids[0];
}

const timedProcess = (argv: string[], env: NodeJS.ProcessEnv): number => {
  const started = performance.now();
  spawnSync(process.execPath, argv, { env, stdio: 'ignore' });
  return performance.now() - started;
};

async function timedPage(page: Page, url: string, ready: string): Promise<number> {
  await page.goto('about:blank');
  const started = performance.now();
  await page.goto(url);
  await page.waitForFunction(ready, { timeout: 60_000 });
  return performance.now() - started;
}

export async function webFigures(ctx: ClientContext, env: NodeJS.ProcessEnv, rounds: number, workdirs: string[]): Promise<WebFigures> {
  const bigLoop = await seed(ctx, 500, 20_000, 2_000, workdirs);
  const port = await freePort();
  const web = spawnCanopy(['web', '--port', String(port)], env);
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  const figures: WebFigures = {
    overviewMs: [],
    loopListCliMs: [],
    bigLoopMs: [],
    loopRunsCliMs: [],
    yardstickMs: [],
    nodeEndToPageMs: [],
    loopInfoCliMs: [],
  };
  try {
    await waitForOutput(web, /canopy web is up/);
    const page = await browser.newPage();
    await page.setViewport({ width: 1440, height: 900 });
    await page.goto(/^Web: (\S+)$/m.exec(web.output())![1]);
    const origin = `http://127.0.0.1:${port}`;
    for (let round = 0; round < rounds; round++) {
      figures.yardstickMs.push(timedProcess(['-e', '0'], env));
      figures.overviewMs.push(await timedPage(page, `${origin}/#/`, "document.querySelectorAll('[data-loop]').length >= 500"));
      figures.loopListCliMs.push(timedProcess([CANOPY_BIN, 'loop', 'list'], env));
      figures.bigLoopMs.push(
        await timedPage(
          page,
          `${origin}/#/loops/${bigLoop}`,
          "document.querySelector('svg.graph [data-vertex]') && document.querySelectorAll('.run-list li').length > 0",
        ),
      );
      figures.loopRunsCliMs.push(timedProcess([CANOPY_BIN, 'loop', 'runs', bigLoop, '--limit', '50'], env));
    }
    const workdir = tempGitRepo();
    workdirs.push(workdir);
    const live = (await importLoop(ctx, loopDocument('web live', 'sleep 1'), { workdir })).loop_id;
    for (let round = 0; round < rounds; round++) {
      await createSpec(ctx, { loop_id: live, name: `round ${round}`, content: '' });
      await page.goto(`${origin}/#/loops/${live}`);
      await page.waitForSelector('svg.graph [data-vertex]');
      await page.evaluate(`(() => {
        window.__seen = {};
        // The page opens on the last round's states: a pass counts once the vertex was seen running in this one.
        const note = () => {
          for (const vertex of document.querySelectorAll('[data-vertex]')) {
            const name = vertex.dataset.vertex;
            if (vertex.dataset.state === 'running') window.__seen[name + ':running'] ??= Date.now();
            else if (vertex.dataset.state === 'pass' && window.__seen[name + ':running']) window.__seen[name + ':pass'] ??= Date.now();
          }
        };
        new MutationObserver(note).observe(document.body, { subtree: true, childList: true, attributes: true });
      })()`);
      const started = Date.now();
      await startLoopRun(ctx, live);
      await waitForLoopRun(ctx, live);
      await page.waitForFunction("window.__seen['test:pass'] !== undefined", { timeout: 30_000 });
      const seen = (await page.evaluate('window.__seen')) as Record<string, number>;
      const ended = (await listNodeRuns(ctx.db, { loopId: live, limit: 4 })).filter((run) => Date.parse(run.started_at) >= started - 1000);
      for (const run of ended) figures.nodeEndToPageMs.push(seen[`${run.node_name}:pass`] - Date.parse(run.ended_at!));
      figures.loopInfoCliMs.push(timedProcess([CANOPY_BIN, 'loop', 'info', live], env));
    }
  } finally {
    await browser.close();
    web.child.kill('SIGINT');
    await web.exited;
  }
  return figures;
}
