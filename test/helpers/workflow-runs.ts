// The runs of one workflow id as Temporal's visibility lists them (a continued loop has several).
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { loopWorkflowId } from '../../src/contract';
import { waitUntil } from './wait';

/** The workflow's runs, oldest first, once every one of them has closed and is visible. */
export async function closedRuns(client: Client, workflowId: string, expected: number): Promise<WorkflowExecutionInfo[]> {
  return waitUntil(`${expected} closed runs of ${workflowId}`, async () => {
    const runs: WorkflowExecutionInfo[] = [];
    for await (const run of client.workflow.list({ query: `WorkflowId = "${workflowId}"` })) runs.push(run);
    if (runs.length !== expected || runs.some((run) => run.status.name === 'RUNNING')) return null;
    return runs.sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
  });
}

/** How many times the loop's open run has scheduled the activity `name` (regular activities only; local ones are markers). */
export async function scheduledActivities(client: Client, loopId: string, name: string): Promise<number> {
  const history = await client.workflow.getHandle(loopWorkflowId(loopId)).fetchHistory();
  return (history.events ?? []).filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === name).length;
}
