// `npm run demo`: a bundled loop run end to end on a private dev server, a temp git repo and the
// stand-in agent. `npm run demo -- --keep` keeps the server, its Temporal UI and the web app up until Ctrl-C.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createActivities } from './activities';
import { writeFileConfig } from './agents/config';
import { openContext } from './client/context';
import { activityDeps, startAgentEndpoint } from './daemon';
import { importLoop } from './client/export-import-service';
import { workflowPageUrl } from './client/loop-status-service';
import { startLoopRun, waitForLoopRun } from './client/runs-service';
import { createSpec } from './client/specs-service';
import { loadConfig } from './config';
import { startLoopbackServer } from './mcp/http';
import { newSignInLink, webOrigin, webRoutes } from './web';
import { excerpt } from './graph/feedback';
import { listNodeRuns } from './store/node-runs-repository';
import { listSpecs } from './store/specs-repository';
import { missingBinaryMessage, resolveTemporalBinary } from './temporal/binary';
import { PROJECT_ROOT } from './project';
import { startDevServer } from './temporal/dev-server';
import { freePort } from './temporal/free-port';
import { connectWorker, createWorkers } from './worker';

const SPECS = [
  { name: 'greet', content: '@write hello.txt Hello, world\n@print wrote hello.txt' },
  { name: 'greet-again', content: '@write hello.txt hullo (a typo the tests will catch)\n@print wrote hello.txt' },
];

function tempGitRepo(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'canopy-demo-repo-'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'demo@canopy.invalid');
  git('config', 'user.name', 'canopy demo');
  writeFileSync(path.join(dir, 'README.md'), '# demo repository\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial commit');
  return dir;
}

function untilInterrupted(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

async function main(): Promise<void> {
  const keep = process.argv.includes('--keep');
  const binary = resolveTemporalBinary();
  if (!binary) throw new Error(missingBinaryMessage());
  const home = mkdtempSync(path.join(os.tmpdir(), 'canopy-demo-home-'));
  const agent = path.join(PROJECT_ROOT, 'examples', 'fake-agent.js');
  writeFileConfig(home, { platforms: { demo: { argv: [process.execPath, agent, '{{prompt}}'] } } });
  const repo = tempGitRepo();
  const address = `127.0.0.1:${await freePort()}`;

  const uiPort = keep ? await freePort() : null;
  console.log(`Starting a private Temporal dev server on ${address}${uiPort ? ` with its UI on http://127.0.0.1:${uiPort}` : ''}…`);
  const server = await startDevServer({ binary: binary.path, address, uiPort });
  const config = loadConfig({ CANOPY_HOME: home, TEMPORAL_ADDRESS: address, CANOPY_TASK_QUEUE: 'canopy-demo' });
  const ctx = await openContext(config);
  const connection = await connectWorker(address);
  try {
    const document: unknown = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'examples', 'demo-loop.json'), 'utf8'));
    const imported = await importLoop(ctx, document, { workdir: repo });
    for (const spec of SPECS) await createSpec(ctx, { loop_id: imported.loop_id, ...spec });
    console.log(`Imported loop '${imported.name}' (${imported.loop_id}) into ${repo} with ${SPECS.length} specs.\n`);

    const agentEndpoint = await startAgentEndpoint(ctx);
    const activities = createActivities(activityDeps(ctx, agentEndpoint.url));
    const workers = await createWorkers({ connection, config, activities });
    const { started, result } = await workers.runUntil(async () => {
      const run = await startLoopRun(ctx, imported.loop_id);
      return { started: run, result: await waitForLoopRun(ctx, imported.loop_id) };
    });

    const specNames = new Map((await listSpecs(ctx.db, { loopId: imported.loop_id })).map((s) => [s.id, s.name]));
    const runs = (await listNodeRuns(ctx.db, { loopId: imported.loop_id, limit: 200 })).reverse();
    for (const run of runs) {
      const what = excerpt(
        run.reason && (run.outcome === 'fail' || run.kind === 'quorum') ? run.reason : run.reported_output || run.stdout,
      ).split('\n')[0];
      console.log(
        `${(specNames.get(run.spec_id ?? '') ?? '').padEnd(12)} ${run.node_name.padEnd(18)} round ${run.round}  ${(run.outcome ?? '').padEnd(5)} ${what}`,
      );
    }
    console.log(`\nLoop ${result.status}: ${result.completedSpecIds.length} specs completed.`);
    console.log(execFileSync('git', ['log', '--oneline'], { cwd: repo, encoding: 'utf8' }));
    await agentEndpoint.close();
    if (result.status !== 'completed') process.exitCode = 1;
    if (uiPort) {
      console.log(
        `This run in the Temporal UI: ${workflowPageUrl(`http://127.0.0.1:${uiPort}`, config.namespace, started.workflow_id)}/${started.run_id}/history`,
      );
      const web = webRoutes(ctx);
      const webServer = await startLoopbackServer({ port: 0, portSetting: 'a free port', label: 'Web', routes: web.serve });
      console.log(`The web app: ${newSignInLink(home, webOrigin(webServer.port))}`);
      console.log('The server, its UI and the web app stay up until Ctrl-C.');
      await untilInterrupted();
      await web.close();
      await webServer.close();
    } else {
      console.log('To see this run in the Temporal UI, run `npm run demo -- --keep`: the server and its UI then stay up until Ctrl-C.');
    }
  } finally {
    await connection.close();
    await ctx.close();
    await server.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
