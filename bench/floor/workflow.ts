// The yardstick of a node step: a bare Temporal workflow that runs `steps` activities one after the
// other, each spawning `bash -c true`, with nothing of canopy around them.
import { proxyActivities } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

const { spawnTrue } = proxyActivities<FloorActivities>({ startToCloseTimeout: '1 minute' });

/** Each activity's start time (epoch ms), in order. */
export async function bareChainWorkflow(steps: number): Promise<number[]> {
  const starts: number[] = [];
  for (let step = 0; step < steps; step++) starts.push(await spawnTrue());
  return starts;
}
