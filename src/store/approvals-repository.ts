// The approvals waiting for a person: node runs left open as `waiting`, with the loop and spec they belong to.
import type { DatabaseOrTransaction } from './database';

export interface WaitingApprovalRow {
  node_run_id: string;
  loop_id: string;
  loop_name: string;
  workdir: string;
  host: string | null;
  spec_id: string | null;
  spec_name: string | null;
  node: string;
  round: number;
  waiting_since: string;
  /** When its on_timeout decides; null when it waits for ever. */
  deadline: string | null;
  /** The approval's message_template, rendered when the walk reached it. */
  message: string;
}

/** Every waiting approval, of every loop, oldest first; or those of one loop. */
export async function listWaitingApprovals(db: DatabaseOrTransaction, loopId?: string): Promise<WaitingApprovalRow[]> {
  let query = db
    .selectFrom('node_runs')
    .innerJoin('loops', 'loops.id', 'node_runs.loop_id')
    .leftJoin('specs', 'specs.id', 'node_runs.spec_id')
    .select([
      'node_runs.id as node_run_id',
      'node_runs.loop_id',
      'loops.name as loop_name',
      'loops.workdir',
      'loops.host',
      'node_runs.spec_id',
      'specs.name as spec_name',
      'node_runs.node_name as node',
      'node_runs.round',
      'node_runs.started_at as waiting_since',
      'node_runs.deadline',
      'node_runs.input as message',
    ])
    .where('node_runs.status', '=', 'waiting')
    .orderBy('node_runs.started_at')
    .orderBy('node_runs.id');
  if (loopId !== undefined) query = query.where('node_runs.loop_id', '=', loopId);
  return query.execute();
}
