// Every recorded loop history replays against the current workflow code: a change to the workflow
// that would break runs already in flight fails here, naming the history and the diverging event.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { Worker, type ReplayResult } from '@temporalio/worker';
import { workflowSource } from '../../src/workflow-bundle';
import { currentEra, historyFiles, readHistory, recordedHistories } from './histories';
import { SCENARIOS } from './scenarios';

describe('replaying recorded loop histories', () => {
  const files = recordedHistories();
  const results = new Map<string, ReplayResult>();

  before(async () => {
    // One replay worker for them all; the file name stands in for the workflow id, which histories do not carry.
    const histories = files.map((file) => ({ workflowId: file, history: readHistory(file) }));
    for await (const result of Worker.runReplayHistories(workflowSource(), histories)) results.set(result.workflowId, result);
  });

  it('has every scenario recorded with the current workflow code', () => {
    const era = currentEra();
    const missing = SCENARIOS.flatMap((s) => historyFiles(s.name, s.runs).map((file) => `${era}/${file}`)).filter(
      (f) => !files.includes(f),
    );
    assert.deepEqual(missing, [], 'record them with `npm run record-histories`');
  });

  for (const file of files) {
    it(`replays ${file}`, () => {
      const result = results.get(file) ?? assert.fail(`${file} was not replayed`);
      if (result.error) assert.fail(`${file} no longer replays (${result.error.name}): ${divergence(result.error)}`);
    });
  }

  // A worker started with tracing on runs the traced bundle, and replays on it the runs that were open before.
  it('replays every history on the traced workflow code', async () => {
    const histories = files.map((file) => ({ workflowId: file, history: readHistory(file) }));
    const traced = { ...workflowSource(true), sinks: { exporter: { export: { fn: () => undefined } } } };
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories(traced, histories))
      if (result.error) failures.push(`${result.workflowId}: ${divergence(result.error)}`);
    assert.deepEqual(failures, []);
  });
});

/** Core's own sentence about the first diverging event, out of the failure that wraps it; else the whole message. */
function divergence(error: Error): string {
  return /message: "(\[TMPRL\d+\][^"]*)"/.exec(error.message)?.[1] ?? error.message;
}
