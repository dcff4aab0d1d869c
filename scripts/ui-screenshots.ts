// `npm run screenshots [-- <dir>]`: runs the demo with its Temporal UI up, then photographs with
// headless Chromium what a person sees there: the workflow list filtered by CanopyLoopStatus and
// the run's own page. Needs Debian's `chromium` (or CHROMIUM=<binary>).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../src/project';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const RENDER_BUDGET_MS = '20000';

function screenshot(url: string, file: string): void {
  const profile = mkdtempSync(path.join(os.tmpdir(), 'canopy-chromium-'));
  try {
    const result = spawnSync(
      CHROMIUM,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        `--user-data-dir=${profile}`,
        '--window-size=1500,1000',
        `--virtual-time-budget=${RENDER_BUDGET_MS}`,
        `--screenshot=${file}`,
        url,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (result.status !== 0) throw new Error(`chromium failed on ${url}: ${result.stderr}`);
    console.log(`${file}  ←  ${url}`);
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const outDir = path.resolve(process.argv[2] ?? path.join(os.tmpdir(), 'canopy-ui'));
  mkdirSync(outDir, { recursive: true });
  const demo = spawn(process.execPath, [path.join(PROJECT_ROOT, 'dist', 'src', 'demo.js'), '--keep'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let printed = '';
  const runPage = await new Promise<string>((resolve, reject) => {
    demo.stdout.on('data', (chunk: Buffer) => {
      printed += chunk.toString();
      const match = /This run in the Temporal UI: (\S+)/.exec(printed);
      if (match) resolve(match[1]);
    });
    demo.once('exit', (code) => reject(new Error(`the demo exited (${code}) before its run was done:\n${printed}`)));
  });
  try {
    const ui = new URL(runPage).origin;
    const list = `${ui}/namespaces/default/workflows?query=${encodeURIComponent('CanopyLoopStatus="completed"')}`;
    screenshot(list, path.join(outDir, 'workflow-list-completed.png'));
    screenshot(runPage, path.join(outDir, 'run-history.png'));
    screenshot(runPage.replace(/\/history$/, '/history?view=timeline'), path.join(outDir, 'run-timeline.png'));
  } finally {
    demo.kill('SIGINT');
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
