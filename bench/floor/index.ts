// Temporal's own floor on this machine, for canopy's step and throughput to be read against: bare
// workflows on the same dev server (same dynamic config), a worker of their own in this process.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { floorActivities } from './activities';
import type { bareChainWorkflow } from './workflow';

const TASK_QUEUE = 'canopy-bench-floor';

export interface Floor {
  /** Gaps between consecutive activity starts of one chain, in ms. */
  stepGaps(steps: number): Promise<number[]>;
  /** Activities per second with `chains` chains of `steps` started at once. */
  throughput(chains: number, steps: number): Promise<number>;
  close(): Promise<void>;
}

/** The bench's only native worker: its runtime is this process's, and logs only warnings. */
export async function startFloor(address: string): Promise<Floor> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const workerConnection = await NativeConnection.connect({ address });
  const worker = await Worker.create({
    connection: workerConnection,
    taskQueue: TASK_QUEUE,
    workflowsPath: require.resolve('./workflow'),
    activities: floorActivities,
  });
  const running = worker.run();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection });
  const chain = (steps: number) =>
    client.workflow.execute<typeof bareChainWorkflow>('bareChainWorkflow', {
      taskQueue: TASK_QUEUE,
      workflowId: `bench-floor-${randomUUID()}`,
      args: [steps],
    });
  return {
    async stepGaps(steps) {
      const starts = await chain(steps);
      return starts.slice(1).map((start, i) => start - starts[i]);
    },
    async throughput(chains, steps) {
      const started = Date.now();
      await Promise.all(Array.from({ length: chains }, () => chain(steps)));
      return (chains * steps) / ((Date.now() - started) / 1000);
    },
    async close() {
      worker.shutdown();
      await running;
      await connection.close();
      await workerConnection.close();
    },
  };
}
