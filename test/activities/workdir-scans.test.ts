// The scans that read what a node left uncommitted after its activity answered: what comes next for
// the loop waits for them, in the order they started, and a failed one is told, not thrown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { workdirScans } from '../../src/activities/workdir-scans';

function deferred() {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Whether `promise` has settled once pending callbacks have run. */
async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

describe('workdir scans', () => {
  it("waits for the loop's scans in the order they started, and not for another loop's", async () => {
    const scans = workdirScans(() => assert.fail('no scan fails'));
    const first = deferred();
    const second = deferred();
    const other = deferred();
    const order: string[] = [];
    scans.start('loop-a', async () => {
      await first.promise;
      order.push('first');
    });
    scans.start('loop-a', async () => {
      order.push('second started');
      await second.promise;
    });
    scans.start('loop-b', () => other.promise);

    assert.equal(await hasSettled(scans.settled('loop-c')), true, 'a loop with no scans goes on at once');
    const loopA = scans.settled('loop-a');
    assert.equal(await hasSettled(loopA), false);
    first.resolve();
    assert.equal(await hasSettled(loopA), false, 'the second scan still runs');
    assert.deepEqual(order, ['first', 'second started'], 'the second began after the first ended');
    second.resolve();
    assert.equal(await hasSettled(loopA), true);
    assert.equal(await hasSettled(scans.settled('loop-a')), true, 'an ended scan is forgotten');

    const drained = scans.drained();
    assert.equal(await hasSettled(drained), false, "loop-b's scan still runs");
    other.resolve();
    assert.equal(await hasSettled(drained), true);
  });

  it('tells of a scan that failed, and the loop goes on', async () => {
    const warnings: string[] = [];
    const scans = workdirScans((message) => warnings.push(message));
    const failing = deferred();
    scans.start('loop-a', () => failing.promise);
    failing.reject(new Error('database is locked'));
    await scans.settled('loop-a');
    assert.deepEqual(warnings, ['canopy: the uncommitted paths after a node of loop loop-a were not recorded: Error: database is locked']);
  });
});
