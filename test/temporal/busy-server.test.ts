// A starting worker waits, a bounded time, for a server that says it is busy, and gives up at once on
// any other refusal. The busy answers are the ones a dev server gave a worker starting beside a loaded
// suite: no test can make a real server that busy on demand.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { NativeConnection } from '@temporalio/worker';
import { whileServerBusy } from '../../src/temporal/busy-server';
import { connectWorker } from '../../src/worker';

const address = process.env.CANOPY_TEST_TEMPORAL_ADDRESS;
const BUSY_MESSAGE = 'Unable to get namespace default info with error: GetNamespace operation failed. Error interrupted (9)';

function busyError(): Error {
  return Object.assign(new Error(BUSY_MESSAGE), { code: 14, details: BUSY_MESSAGE });
}

/** A call the server answers only after saying it is busy `times` times. */
function busyFor(times: number) {
  let calls = 0;
  const call = () => {
    calls += 1;
    return calls <= times ? Promise.reject(busyError()) : Promise.resolve('answered');
  };
  return { call, calls: () => calls };
}

describe('whileServerBusy', () => {
  it('asks again while the server says it is busy, and reports that once', async () => {
    const lines: string[] = [];
    const server = busyFor(2);
    const answer = await whileServerBusy(server.call, { what: 'list', address: 'here:7233', progress: (line) => lines.push(line) });
    assert.equal(answer, 'answered');
    assert.equal(server.calls(), 3);
    assert.deepEqual(lines, [`Temporal at here:7233 is busy (${BUSY_MESSAGE}); asking again for up to 60 s…`]);
  });

  it('gives up when the server stays busy past its time, naming what it could not do', async () => {
    const server = busyFor(Infinity);
    await assert.rejects(
      whileServerBusy(server.call, { what: 'list the open loop runs', address: 'here:7233', progress: () => undefined, withinMs: 2_500 }),
      (error: Error) => {
        assert.equal(error.message, `Temporal at here:7233 could not list the open loop runs within 2.5 s: ${BUSY_MESSAGE}`);
        return true;
      },
    );
    assert.ok(server.calls() >= 2 && server.calls() <= 3, `asked ${server.calls()} times`);
  });

  describe('against the dev server', { skip: address ? false : 'needs the dev server of `npm test`' }, () => {
    let connection: NativeConnection | undefined;
    after(async () => {
      await connection?.close();
    });

    it('throws any other refusal at once', async () => {
      connection = await connectWorker(address!);
      const lines: string[] = [];
      await assert.rejects(
        whileServerBusy(() => connection!.operatorService.listSearchAttributes({ namespace: 'never-registered' }), {
          what: 'list',
          address: address!,
          progress: (line) => lines.push(line),
        }),
        /never-registered/,
      );
      assert.deepEqual(lines, [], 'not taken for a busy server');
    });
  });
});
