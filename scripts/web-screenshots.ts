// `npm run screenshots:web [-- <dir>]`: runs the demo with the web app up, signs in with the link it
// prints, and photographs the overview, the loop, a node run with its diff, the inbox and the spend at
// 1440x900 and 390x844 (a phone) in headless chromium (docs/web/ by default; CHROMIUM names another binary).
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import puppeteer, { type Page } from 'puppeteer-core';
import { PROJECT_ROOT } from '../src/project';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SIZES = [
  { name: 'desktop', width: 1440, height: 900 },
  { name: 'phone', width: 390, height: 844 },
];

async function shoot(page: Page, url: string, ready: string, file: string): Promise<void> {
  await page.goto(url);
  await page.waitForSelector(ready);
  await new Promise((resolve) => setTimeout(resolve, 300));
  await page.screenshot({ path: file });
  console.log(`${file}  <-  ${url}`);
}

async function main(): Promise<void> {
  const outDir = path.resolve(process.argv[2] ?? path.join(PROJECT_ROOT, 'docs', 'web'));
  mkdirSync(outDir, { recursive: true });
  const demo = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'src', 'demo.js'), '--keep'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let printed = '';
  const link = await new Promise<string>((resolve, reject) => {
    demo.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const match = /The web app: (\S+)/.exec(printed);
      if (match) resolve(match[1]);
    });
    demo.once('exit', (code) => reject(new Error(`the demo exited (${code}) before the web app was up:\n${printed}`)));
  });
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    await page.goto(link);
    const origin = new URL(link).origin;
    const loopId = /Imported loop '[^']*' \((\S+)\)/.exec(printed)![1];
    await page.goto(`${origin}/#/loops/${loopId}`);
    await page.waitForSelector('.run-list li a');
    const runWithDiff = (await page.evaluate(
      `[...document.querySelectorAll('.run-list li')].find((li) => li.textContent.startsWith('commit'))?.dataset.run`,
    )) as string | undefined;
    for (const size of SIZES) {
      await page.setViewport({ width: size.width, height: size.height });
      await shoot(page, `${origin}/#/`, '[data-loop]', path.join(outDir, `overview-${size.name}.png`));
      await shoot(page, `${origin}/#/loops/${loopId}`, 'svg.graph [data-vertex]', path.join(outDir, `loop-${size.name}.png`));
      if (runWithDiff) await shoot(page, `${origin}/#/runs/${runWithDiff}`, '.changes', path.join(outDir, `node-run-${size.name}.png`));
      await shoot(page, `${origin}/#/spend`, '.spend', path.join(outDir, `spend-${size.name}.png`));
    }
  } finally {
    await browser.close();
    demo.kill('SIGINT');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
