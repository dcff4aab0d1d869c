// A spec's walk runs each node as the graph stood when the spec started: the workflow hands every
// activity the node's kind and config, so a node edited under a running spec (even into another
// kind) runs as the walk chose it, and the edit takes hold when the next spec starts.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { getNodeByName, updateNode } from '../../src/store/graph-repository';
import { useEngineHarness } from '../helpers/engine';
import { check, linked, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';
import { waitUntil } from '../helpers/wait';

describe('nodes handed to their activities', () => {
  const h = useEngineHarness();

  it(
    'run as the spec found them; an edit under a running spec, kind and all, takes hold at the next spec',
    { timeout: 90_000 },
    async () => {
      const workdir = scratchDir();
      const shape = linked(check('first', 1, 'while [ ! -e go ]; do sleep 0.1; done; echo first'), check('second', 2, 'echo as walked'));
      const loopId = await loopWithSpecs(h.ctx, workdir, shape, [{ name: 'one' }, { name: 'two' }]);
      const result = await h.withWorker(async () => {
        const ended = runToEnd(h.ctx, loopId);
        await waitUntil('the first node to run', async () => (await runsOf(h.ctx, loopId)).some((run) => run.node_name === 'first'));
        const second = (await getNodeByName(h.ctx.db, loopId, 'second'))!;
        await updateNode(h.ctx.db, second.id, { kind: 'gate', config: { output_contains: 'never printed' } });
        writeFileSync(path.join(workdir, 'go'), '');
        return ended;
      });
      const seconds = (await runsOf(h.ctx, loopId)).filter((run) => run.node_name === 'second');
      assert.deepEqual(
        seconds.map((run) => [run.status, run.failure_kind, run.stdout]),
        [
          ['pass', null, 'as walked\n'],
          ['fail', 'gate', 'first\n'],
        ],
        'spec one ran the check it started with; spec two judged as the gate it found',
      );
      assert.deepEqual([result.status, result.failingNode], ['failed', 'second']);
    },
  );
});
