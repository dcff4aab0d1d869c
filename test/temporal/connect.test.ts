// A command's connection to the real dev server: a namespace the server says is missing is asked
// about again a few times (the server says so too when its store is slow), and then refused; for
// about a minute when the server's store says the namespace exists.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { defaultGrpcRetryOptions, type Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { callRetries, connectWithin, namespaceInStore, type NamespaceLookUp } from '../../src/temporal/connect';

const address = process.env.CANOPY_TEST_TEMPORAL_ADDRESS;

describe('connectWithin', { skip: address ? false : 'needs the dev server of `npm test`' }, () => {
  let connection: Connection;
  before(async () => {
    connection = await connectWithin(address!, 30_000);
  });
  after(async () => {
    await connection.close();
  });

  it('answers a call for a namespace the server first says is missing, once it is there', async () => {
    const namespace = `appears-${randomBytes(4).toString('hex')}`;
    const listing = connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 });
    await connection.workflowService.registerNamespace({ namespace, workflowExecutionRetentionPeriod: msToTs('1 day') });
    const { executions } = await listing;
    assert.deepEqual(executions, []);
  });

  it("asks the server's store whether a namespace exists", async () => {
    const lookUp = namespaceInStore(address!);
    assert.deepEqual([await lookUp('default'), await lookUp('never-registered')], [true, false]);
  });

  it('still refuses a namespace that stays missing, after a few seconds', async () => {
    const started = Date.now();
    await assert.rejects(connection.workflowService.listWorkflowExecutions({ namespace: 'never-registered', pageSize: 1 }), /is not found/);
    assert.ok(Date.now() - started >= 2_000, 'asked again before refusing');
  });
});

describe('the retries of a call the server answers "Namespace … is not found"', () => {
  const missing = (namespace: string) => ({ code: 5, details: `Namespace ${namespace} is not found.`, metadata: undefined as never });
  /** The decisions for attempts 1..16 of a call naming `namespace`, once the look-up has answered. */
  async function decisions(lookUp: NamespaceLookUp, namespace = 'busy'): Promise<boolean[]> {
    const retries = callRetries(defaultGrpcRetryOptions(), lookUp);
    retries.retryableDecider(1, missing(namespace));
    await new Promise((resolve) => setImmediate(resolve));
    return Array.from({ length: 16 }, (_, index) => retries.retryableDecider(index + 1, missing(namespace)));
  }

  it('asks for a namespace the store has 15 more times, about a minute of pauses', async () => {
    const answers = await decisions(() => Promise.resolve(true));
    assert.deepEqual(answers, [...Array<boolean>(15).fill(true), false]);
    const retries = callRetries(defaultGrpcRetryOptions(), () => Promise.resolve(true));
    const pauses = Array.from({ length: 15 }, (_, index) => retries.delayFunction(index + 1, missing('busy')));
    const total = pauses.reduce((sum, pause) => sum + pause, 0);
    assert.ok(total > 50_000 && total < 70_000, `${total} ms of pauses`);
  });

  it('gives up after 5 attempts when the store says the namespace does not exist, or cannot say', async () => {
    for (const lookUp of [() => Promise.resolve(false), () => Promise.reject(new Error('store busy'))]) {
      assert.deepEqual(await decisions(lookUp), [true, true, true, true, ...Array<boolean>(12).fill(false)]);
    }
  });

  it('asks the store once per namespace while it has answered, and again after it failed to', async () => {
    const asked: string[] = [];
    const retries = callRetries(defaultGrpcRetryOptions(), (namespace) => {
      asked.push(namespace);
      return namespace === 'flaky' ? Promise.reject(new Error('store busy')) : Promise.resolve(true);
    });
    for (const namespace of ['busy', 'busy', 'flaky', 'other']) retries.retryableDecider(1, missing(namespace));
    await new Promise((resolve) => setImmediate(resolve));
    for (const namespace of ['busy', 'flaky']) retries.retryableDecider(2, missing(namespace));
    assert.deepEqual(asked, ['busy', 'flaky', 'other', 'flaky']);
  });

  it('leaves every other answer to the SDK', () => {
    let lookUps = 0;
    const retries = callRetries(defaultGrpcRetryOptions(), () => {
      lookUps++;
      return Promise.resolve(true);
    });
    const unavailable = { code: 14, details: 'busy', metadata: undefined as never };
    const otherNotFound = { code: 5, details: 'workflow execution not found', metadata: undefined as never };
    assert.equal(retries.retryableDecider(1, unavailable), true);
    assert.equal(retries.retryableDecider(1, otherNotFound), false);
    assert.equal(lookUps, 0);
  });
});
