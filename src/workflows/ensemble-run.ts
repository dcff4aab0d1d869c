// An ensemble to its outcome: its members side by side (with the quorum grace when it has one) or
// taking turns, each in a worktree of its own when it is isolated, then the join in its quorum node,
// which judges min_pass and the group's HEAD move.
import { patched } from '@temporalio/workflow';
import type { EnsembleRuntime, MemberWorktrees, MemberWorktreesPlace, NodeOutcome, QuorumMet } from '../contract';
import { stepAfter } from '../graph/topology';
import { currentTurn, nextTurn, type TurnKind, turnOrder, turnsAccount } from '../graph/turns';
import { mapWithConcurrency, runGracedMembers } from './ensemble-members';
import { PATCHES } from './patches';
import type { ExecutionBase, LoopRun, SpecWalk } from './run-state';
import { graceSummary, memberSummary, quorumSummary, tell } from './story';

interface MembersEnd {
  memberRunIds: string[];
  passed: number;
  quorumMet?: QuorumMet;
  /** Members that took turns: which ran and why, for the quorum document. */
  turnsAccount?: string;
}

export async function runEnsemble(run: LoopRun, walk: SpecWalk, name: string, base: ExecutionBase): Promise<NodeOutcome> {
  const ensemble = walk.graph.ensembles[name];
  const { commitRightsEnforced } = walk.graph;
  const headBefore = commitRightsEnforced
    ? await run.activities.workdirReads(`HEAD before ${name}`).readHead({ workdir: run.workdir })
    : '';
  const place: MemberWorktreesPlace = { loopId: run.loopId, specId: walk.specId, ensembleName: name, workdir: run.workdir };
  const worktrees = ensemble.isolated && patched(PATCHES.memberWorktrees) ? await openWorktrees(run, walk, place) : null;
  run.live.memberStates = Object.fromEntries(ensemble.members.map((member) => [member, 'pending' as const]));
  const slots: MemberSlots = { ...memberQueue(run), worktrees, judgeCommitRights: worktrees !== null && commitRightsEnforced };
  const members =
    ensemble.kind && patched(PATCHES.ensembleKinds)
      ? await membersInTurns(run, walk, name, base, slots, ensemble.kind)
      : ensemble.graceMinutes === null
        ? await everyMember(run, ensemble, base, slots)
        : await gracedMembers(run, walk, name, base, slots);
  const { memberRunIds, passed, quorumMet, turnsAccount } = members;
  const outcome = await run.activities.execution(quorumSummary(name, passed, memberRunIds.length, ensemble.minPass)).joinQuorum({
    ...walk.context,
    ensembleName: name,
    quorumNode: ensemble.quorumNode,
    memberRunIds,
    minPass: ensemble.minPass,
    round: base.round,
    runKey: base.runKey,
    headBefore,
    judgeCommitRights: commitRightsEnforced,
    ...(quorumMet && { quorumMet }),
    ...(turnsAccount && { turnsAccount }),
    ...(worktrees && { memberWorktrees: worktrees }),
  });
  // Where the run stops here (failed), they stay, so a continue that retries the ensemble reruns its members in them.
  if (worktrees && stepAfter(walk.graph.topology, name, outcome))
    await run.activities.onHost(`remove the worktrees of ${name}`).removeMemberWorktrees(place);
  return outcome;
}

/** A worktree per member from the run's tree; a continue retrying the ensemble finds the ones its failed run left. */
function openWorktrees(run: LoopRun, walk: SpecWalk, place: MemberWorktreesPlace): Promise<MemberWorktrees> {
  const reuse = walk.retriedAt === place.ensembleName && walk.visits.get(place.ensembleName) === 1;
  const members = walk.graph.ensembles[place.ensembleName].members.length;
  return run.activities.onHost(`worktrees for the members of ${place.ensembleName}`).openMemberWorktrees({ ...place, members, reuse });
}

const memberKey = (base: ExecutionBase, index: number) => `${base.runKey}:${index}`;

/** Where an ensemble's members are scheduled, how one scheduled but not yet started shows, and where each works. */
interface MemberSlots {
  queue: LoopRun['activities']['execution'];
  waiting: 'queued' | 'running';
  /** Each member's own worktree when the ensemble is isolated; null: all work in the run's workdir. */
  worktrees: MemberWorktrees | null;
  /** An isolated member's HEAD move is its own to answer for; shared ones are judged as a group. */
  judgeCommitRights: boolean;
}

/**
 * Members go to the member queue, whose workers cap how many run on a host across every loop: one
 * scheduled there waits, queued, for a slot. Each ensemble still schedules them in member order, a
 * few at a time, as the queue itself promises no order. Runs from before used the execution queue.
 */
function memberQueue(run: LoopRun): Pick<MemberSlots, 'queue' | 'waiting'> {
  return patched(PATCHES.memberQueues)
    ? { queue: run.activities.member, waiting: 'queued' }
    : { queue: run.activities.execution, waiting: 'running' };
}

/** Runs one member, keeping its live state for `loop watch` and the UI. */
function memberRunner(run: LoopRun, ensemble: EnsembleRuntime, base: ExecutionBase, slots: MemberSlots) {
  return async (member: string, index: number): Promise<NodeOutcome> => {
    run.live.memberStates[member] = slots.waiting;
    tell(run.live);
    const result = await slots.queue(memberSummary(member, ensemble.memberLabels[index])).runNode({
      ...base,
      nodeName: member,
      runKey: memberKey(base, index),
      judgeCommitRights: slots.judgeCommitRights,
      stragglerMinutes: ensemble.stragglerMinutes,
      ...(ensemble.memberConfigs && { node: { kind: 'agent', config: ensemble.memberConfigs[index] } }),
      ...(slots.worktrees && { workdir: slots.worktrees.workdirs[index] }),
    });
    run.live.memberStates[member] = result.outcome === 'pass' ? 'pass' : 'fail';
    tell(run.live);
    return result;
  };
}

async function everyMember(run: LoopRun, ensemble: EnsembleRuntime, base: ExecutionBase, slots: MemberSlots): Promise<MembersEnd> {
  const members = await mapWithConcurrency(ensemble.members, run.engine.ensembleConcurrency, memberRunner(run, ensemble, base, slots));
  return { memberRunIds: members.map((member) => member.nodeRunId), passed: members.filter((member) => member.outcome === 'pass').length };
}

/** One member at a time, from whose turn it is, until one passes (a round_robin runs only that one); the turn moves on as the outcome says. */
async function membersInTurns(
  run: LoopRun,
  walk: SpecWalk,
  name: string,
  base: ExecutionBase,
  slots: MemberSlots,
  kind: TurnKind,
): Promise<MembersEnd> {
  const ensemble = walk.graph.ensembles[name];
  const turn = currentTurn(walk.turns[name], ensemble.members.length);
  const runMember = memberRunner(run, ensemble, base, slots);
  const ran: { member: number; passed: boolean; nodeRunId: string }[] = [];
  for (const member of turnOrder(kind, ensemble.members.length, turn)) {
    const { outcome, nodeRunId } = await runMember(ensemble.members[member], member);
    ran.push({ member, passed: outcome === 'pass', nodeRunId });
    if (outcome === 'pass') break;
  }
  const passer = ran.find((entry) => entry.passed)?.member ?? null;
  walk.turns[name] = nextTurn(kind, ensemble.members.length, turn, passer);
  const names = ensemble.members.map((member, index) => `${ensemble.memberLabels[index]} (${member})`);
  return {
    memberRunIds: ran.map((entry) => entry.nodeRunId),
    passed: passer === null ? 0 : 1,
    turnsAccount: turnsAccount(kind, names, turn, ran),
  };
}

/** The members the grace cut short end on record as quorum_met, so the quorum reads a run for every member. */
async function gracedMembers(run: LoopRun, walk: SpecWalk, name: string, base: ExecutionBase, slots: MemberSlots): Promise<MembersEnd> {
  const ensemble = walk.graph.ensembles[name];
  const graceMinutes = ensemble.graceMinutes ?? 0;
  const { outcomes, quorumMetAt } = await runGracedMembers({
    members: ensemble.members,
    concurrency: run.engine.ensembleConcurrency,
    minPass: ensemble.minPass,
    graceMinutes,
    run: memberRunner(run, ensemble, base, slots),
    graceSummary: graceSummary(name, graceMinutes),
  });
  const cut = ensemble.members.flatMap((member, index) => (outcomes[index] ? [] : [{ nodeName: member, runKey: memberKey(base, index) }]));
  const cutRunIds =
    cut.length && quorumMetAt
      ? await run.activities.bookkeeping(`members of ${name} cut short`).recordCutMembers({
          ...walk.context,
          round: base.round,
          minPass: ensemble.minPass,
          quorumMetAt,
          graceMinutes,
          members: cut,
        })
      : [];
  for (const { nodeName } of cut) run.live.memberStates[nodeName] = 'fail';
  let nextCut = 0;
  return {
    memberRunIds: outcomes.map((outcome) => outcome?.nodeRunId ?? cutRunIds[nextCut++]),
    passed: outcomes.filter((outcome) => outcome?.outcome === 'pass').length,
    quorumMet: quorumMetAt ? { at: quorumMetAt, graceMinutes } : undefined,
  };
}
