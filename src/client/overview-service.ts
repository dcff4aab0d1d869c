// Every loop at a glance, as the web app's overview lists them: its status, the node it runs or waits
// at and in which round, what its agents spent, when it last did anything; and how many approvals wait.
import type { Loop } from '../domain/loop';
import type { NodeRun } from '../domain/node-run';
import { agentUsageByLoop, latestNodeRunOfEachLoop } from '../store/node-runs-repository';
import type { ClientContext } from './context';
import { listInbox } from './approvals-service';
import { loopIdentity, type LoopIdentity } from './loop-identity';
import { listLoops } from './loops-service';
import type { UsageTotals } from './usage-service';

export interface LoopOverview extends LoopIdentity {
  /** The newest node run: the one running or waiting while the loop runs, else the last one that ended. */
  latest_node: { node: string; round: number; status: string } | null;
  spend: UsageTotals;
  /** The newest of the loop's last change and its newest node run's start or end. */
  last_activity: string;
}

export interface Overview {
  loops: LoopOverview[];
  inbox_count: number;
}

/** A fixed number of store queries, however many loops there are: the latest runs and the spend of all loops are read at once. */
export async function loopsOverview(ctx: ClientContext, options: { include_archived?: boolean } = {}): Promise<Overview> {
  const [loops, inbox, latestRuns, usage] = await Promise.all([
    listLoops(ctx, { include_archived: options.include_archived ?? false }),
    listInbox(ctx),
    latestNodeRunOfEachLoop(ctx.db),
    agentUsageByLoop(ctx.db),
  ]);
  return {
    loops: loops.map((loop) => overviewOf(loop, latestRuns.get(loop.id), usage.get(loop.id) ?? NO_USAGE)),
    inbox_count: inbox.length,
  };
}

const NO_USAGE: UsageTotals = { agent_runs: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 };

function overviewOf(
  loop: Loop,
  latest: Pick<NodeRun, 'node_name' | 'round' | 'status' | 'started_at' | 'ended_at'> | undefined,
  spend: UsageTotals,
): LoopOverview {
  const times = [loop.updated_at, latest?.started_at, latest?.ended_at].filter((time): time is string => Boolean(time));
  return {
    ...loopIdentity(loop),
    latest_node: latest ? { node: latest.node_name, round: latest.round, status: latest.status } : null,
    spend,
    last_activity: times.sort().at(-1)!,
  };
}
