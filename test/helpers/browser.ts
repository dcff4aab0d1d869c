// A real browser for the web app's tests: Debian's chromium driven by puppeteer-core, and plain HTTP
// requests that set what a browser would not let a page set (a foreign Origin, no cookie).
import { existsSync } from 'node:fs';
import http from 'node:http';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

export const CHROMIUM = process.env.CANOPY_TEST_CHROMIUM || '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const NO_CHROMIUM = `chromium is not installed at ${CHROMIUM} (.ci/run installs it; CANOPY_TEST_CHROMIUM names another)`;

/** `args`: more of chromium's switches, e.g. one that resolves a made-up name to loopback. */
export function launchBrowser(args: string[] = []): Promise<Browser> {
  return puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', ...args] });
}

/** A page that fails the test on a script error and collects Content-Security-Policy violations. */
export async function openPage(browser: Browser, viewport = { width: 1440, height: 900 }): Promise<Page & { problems: string[] }> {
  const page = await browser.newPage();
  await page.setViewport(viewport);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) problems.push(`console: ${message.text()}`);
  });
  return Object.assign(page, { problems });
}

/** The sign-in link `canopy up` or `canopy web` printed. */
export function signInLinkIn(output: string): string {
  const link = /^Web: (http:\/\/\S+\/sign-in\?token=\S+)$/m.exec(output)?.[1];
  if (!link) throw new Error(`no sign-in link in:\n${output}`);
  return link;
}

export interface PlainAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with exactly the headers given. */
export function plainRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<PlainAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: options.method ?? 'GET', headers: options.headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

/** The `name=value` of the session cookie the browser holds for `url`. */
export async function sessionCookie(page: Page, url: string): Promise<string> {
  const cookie = (await page.browserContext().cookies()).find(
    (c) => c.name.startsWith('canopy_session_') && url.includes(`:${c.name.split('_').pop()}`),
  );
  if (!cookie) throw new Error('the browser holds no session cookie');
  return `${cookie.name}=${cookie.value}`;
}

/** The text of the first element `selector` finds (null when none), read in the page. */
export function textOf(page: Page, selector: string): Promise<string | null> {
  return page.evaluate(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`) as Promise<string | null>;
}

/** The texts of every element `selector` finds, in document order. */
export function textsOf(page: Page, selector: string): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll(${JSON.stringify(selector)})].map((element) => element.textContent)`) as Promise<
    string[]
  >;
}
