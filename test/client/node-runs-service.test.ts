// A node run read through the service: secrets are masked in its output and in its earlier attempts.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createLoop } from '../../src/client/loops-service';
import { getRun } from '../../src/client/node-runs-service';
import { insertNodeRun } from '../../src/store/node-runs-repository';
import { tempDir, useTestStore } from '../helpers/store';

const store = useTestStore();

it('redacts secrets in the attempt history as in the run itself', async () => {
  const loop = await createLoop(store.ctx, { name: 'secrets', workdir: tempDir() });
  const secret = 'API_KEY=abcdef123456';
  const attempt = {
    infra_attempt: 1,
    activity_attempt: 1,
    status: 'running' as const,
    stdout: secret,
    stderr: '',
    exit_code: null,
    reported_status: 'pass' as const,
    reported_output: secret,
  };
  const run = await insertNodeRun(store.ctx.db, {
    loop_id: loop.id,
    node_name: 'n',
    kind: 'check',
    round: 1,
    stdout: secret,
    attempts: [attempt],
  });
  const read = await getRun(store.ctx, run.id);
  assert.equal(read.stdout, 'API_KEY=[REDACTED]');
  assert.deepEqual(
    read.attempts.map((a) => [a.stdout, a.reported_output]),
    [['API_KEY=[REDACTED]', 'API_KEY=[REDACTED]']],
  );
});
