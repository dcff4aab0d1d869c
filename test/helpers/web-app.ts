// `canopy web` as the web tests run it: a real process over an engine harness's store and Temporal
// (the harness's in-process worker runs the loops), and a browser page signed in to it.
import type { Browser, Page } from 'puppeteer-core';
import type { CanopyConfig } from '../../src/config';
import { freePort } from '../../src/temporal/free-port';
import { openPage, signInLinkIn } from './browser';
import { childEnv } from './engine';
import { runCanopy, spawnCanopy, waitForOutput, type CanopyProcess } from './processes';

export interface WebApp {
  origin: string;
  process: CanopyProcess;
  /** A new page of `browser`, signed in with a fresh link, on the overview. */
  signedInPage(browser: Browser, viewport?: { width: number; height: number }): Promise<Page & { problems: string[] }>;
  /** Stops the process and starts another on the same port (sessions live in the home, so pages stay signed in). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startWebApp(config: CanopyConfig): Promise<WebApp> {
  const port = await freePort();
  const env = childEnv(config);
  const start = async () => {
    const started = spawnCanopy(['web', '--port', String(port)], env);
    await waitForOutput(started, /canopy web is up/);
    return started;
  };
  let web = await start();
  let links = 0;
  const stop = async () => {
    web.child.kill('SIGINT');
    await web.exited;
  };
  return {
    origin: `http://127.0.0.1:${port}`,
    get process() {
      return web;
    },
    async signedInPage(browser, viewport) {
      // The first link is the one printed at start-up; later ones as `canopy web --print-link` makes them.
      const link =
        links++ === 0 ? signInLinkIn(web.output()) : (await runCanopy(env, 'web', '--print-link', '--port', String(port))).stdout.trim();
      const page = await openPage(browser, viewport);
      await page.goto(link);
      await page.waitForSelector('.app');
      return page;
    },
    async restart() {
      await stop();
      web = await start();
    },
    stop,
  };
}
