// Whether an agent run continues its CLI's session of an earlier run of the node in the same spec, decided
// from the store when the run starts: an agent when its config says `resume: true`, an ensemble member
// unless its own `resume: false` says otherwise (and only from its own last run, when that passed).
import type { Platform } from '../agents';
import type { NodeRun } from '../domain/node-run';
import { isMemberNodeName } from '../graph/ensemble-names';
import type { AgentConfig } from '../node-kinds/agent';
import { latestEarlierRunOfNode } from '../store/node-runs-repository';
import type { ActivityDeps } from './deps';

/** The session to continue, or, when resuming was wanted but cannot be, why the run starts cold. */
export type ResumePlan = { session: string; coldReason: null } | { session: null; coldReason: string | null };

const COLD: ResumePlan = { session: null, coldReason: null };
const cold = (coldReason: string): ResumePlan => ({ session: null, coldReason });

export async function resumePlan(
  deps: ActivityDeps,
  run: NodeRun,
  config: Pick<AgentConfig, 'resume'>,
  platform: Platform,
  workdir: string,
): Promise<ResumePlan> {
  const member = isMemberNodeName(run.node_name);
  if (!(config.resume ?? member)) return COLD;
  if (!platform.adapter.session) return cold(`platform '${platform.name}' has no session canopy can continue`);
  const earlier = await latestEarlierRunOfNode(deps.db, run, { withSession: !member });
  if (!earlier)
    return cold(member ? 'no earlier run of this member in this spec' : 'no earlier run of this node in this spec recorded a session');
  if (member && earlier.status !== 'pass') return cold(`this member's last run in this spec did not pass (${earlier.status})`);
  return sessionIn(earlier, { platform: platform.name, host: deps.hostId, workdir });
}

/** The earlier run's session, when this run can reach it: the same CLI, on the same host, in the same directory. */
function sessionIn(earlier: NodeRun, here: { platform: string; host: string; workdir: string }): ResumePlan {
  const { session_id: session, executed_platform: platform, executed_host: host, session_workdir: workdir } = earlier;
  if (!session) return cold(`the last run (${earlier.id}) recorded no session`);
  if (platform !== here.platform) return cold(`session ${session} is ${platform ?? 'another platform'}'s; this run uses ${here.platform}`);
  if (host !== here.host) return cold(`session ${session} is on host ${host ?? '(unknown)'}; this run is on ${here.host}`);
  // Every CLI files its sessions by the directory it ran in (or resumes them there): a run in another
  // directory (a fresh sandbox, another worktree) would continue a conversation about files it does not have.
  if (workdir !== here.workdir) return cold(`session ${session} worked in ${workdir ?? '(unknown)'}; this run works in ${here.workdir}`);
  return { session, coldReason: null };
}
