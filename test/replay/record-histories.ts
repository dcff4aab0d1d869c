// `npm run record-histories [scenario…]`: plays the scenarios on fresh dev servers and writes each
// workflow run's event history to test/fixtures/histories/<era>/, the era of the current code.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loopWorkflowId } from '../../src/contract';
import { startTestServer, SUGGEST_CONTINUE_AS_NEW_EARLY, type TestServer } from '../helpers/dev-server';
import { engineHarness } from '../helpers/engine';
import { closedRuns } from '../helpers/workflow-runs';
import { currentEra, HISTORIES_DIR, historyFiles, historyText } from './histories';
import { SCENARIOS, type Scenario } from './scenarios';

async function record(server: TestServer, scenarios: Scenario[], outDir: string): Promise<void> {
  // The harness (test/helpers/engine.ts) finds its server where `npm test` puts it.
  process.env.CANOPY_TEST_TEMPORAL_ADDRESS = server.address;
  const h = await engineHarness();
  try {
    const client = await h.ctx.temporal();
    await h.withWorker(async () => {
      for (const scenario of scenarios) {
        const loopId = await scenario.play(h);
        const runs = await closedRuns(client, scenario.workflowId?.(loopId) ?? loopWorkflowId(loopId), scenario.runs);
        const files = historyFiles(scenario.name, scenario.runs);
        for (const [index, run] of runs.entries()) {
          const history = await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory();
          const file = path.join(outDir, files[index]);
          writeFileSync(file, historyText(history));
          console.log(`${path.relative(HISTORIES_DIR, file)}: ${history.events?.length ?? 0} events`);
        }
      }
    });
  } finally {
    await h.close();
  }
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const unknown = only.filter((name) => !SCENARIOS.some((scenario) => scenario.name === name));
  if (unknown.length > 0)
    throw new Error(`No scenario ${unknown.join(', ')}; the scenarios are ${SCENARIOS.map((s) => s.name).join(', ')}.`);
  const chosen = SCENARIOS.filter((scenario) => only.length === 0 || only.includes(scenario.name));
  const outDir = path.join(HISTORIES_DIR, currentEra());
  mkdirSync(outDir, { recursive: true });
  const groups = [
    { scenarios: chosen.filter((scenario) => !scenario.continueAsNew), dynamicConfig: [] },
    { scenarios: chosen.filter((scenario) => scenario.continueAsNew), dynamicConfig: [SUGGEST_CONTINUE_AS_NEW_EARLY] },
  ].filter((group) => group.scenarios.length > 0);
  // Both servers are up before either records, so the second cannot pick a port the first is still letting go of.
  const servers: TestServer[] = [];
  try {
    for (const group of groups) servers.push(await startTestServer(group.dynamicConfig));
    for (const [index, group] of groups.entries()) await record(servers[index], group.scenarios, outDir);
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
