// A command's connection to the real dev server: a namespace the server says is missing is asked
// about again a few times (the server says so too when its store is slow), and then refused.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Connection } from '@temporalio/client';
import { msToTs } from '@temporalio/common/lib/time';
import { connectWithin } from '../../src/temporal/connect';

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

  it('still refuses a namespace that stays missing, after a few seconds', async () => {
    const started = Date.now();
    await assert.rejects(connection.workflowService.listWorkflowExecutions({ namespace: 'never-registered', pageSize: 1 }), /is not found/);
    assert.ok(Date.now() - started >= 2_000, 'asked again before refusing');
  });
});
