// What a person reads in the Temporal UI about a loop run: a summary on every activity it
// schedules, the workflow's current details (where it is, what it waits for) and its status
// search attribute. Text from the workflow's own state, so it is deterministic.
import { setCurrentDetails, upsertSearchAttributes } from '@temporalio/workflow';
import { LOOP_STATUS_ATTRIBUTE, type LiveState } from '../contract';

/** Says where the run is now in the Temporal UI, and keeps the list's status filter true when the status changed. */
export function tell(state: LiveState, statusChanged = false): void {
  setCurrentDetails(currentDetails(state));
  if (statusChanged) upsertSearchAttributes([{ key: LOOP_STATUS_ATTRIBUTE, value: state.status }]);
}

export function nodeSummary(node: string, specName: string | null, round: number): string {
  return `${node} · spec "${specName ?? '?'}" · round ${round}`;
}

export function memberSummary(member: string, label: string | undefined): string {
  return label ? `${member} (${label})` : member;
}

export function quorumSummary(ensemble: string, passed: number, members: number, minPass: number): string {
  return `quorum ${ensemble}: ${passed} of ${members} passed (needs ${minPass})`;
}

export function graceSummary(ensemble: string, graceMinutes: number): string {
  return `quorum ${ensemble} met: the other members may finish within ${graceMinutes} min`;
}

export function currentDetails(state: LiveState): string {
  const spec = state.specName ? `spec "${state.specName}"` : 'between specs';
  switch (state.status) {
    case 'paused':
      return `paused after ${state.vertex ?? 'a node'} in ${spec}: waiting for \`canopy loop continue\``;
    case 'waiting':
      return `waiting at approval ${state.approval?.node ?? state.vertex ?? 'a node'} in ${spec}: decide with \`canopy approve\` or \`canopy reject\`${state.approval?.deadline ? ` (by itself at ${state.approval.deadline})` : ''}`;
    case 'blocked':
      return `blocked at ${state.vertex ?? 'a node'} in ${spec}: ${state.blockedReason ?? 'a blocker'}; waiting for \`canopy loop continue\``;
    case 'completed':
    case 'failed':
      return `${state.status}`;
    case 'running': {
      const members = Object.entries(state.memberStates)
        .filter(([, member]) => member === 'running')
        .map(([name]) => name);
      const waiting = members.length ? `waiting for ${members.join(', ')}` : `running ${state.vertex ?? 'the next node'}`;
      const rounds = Object.entries(state.rounds)
        .map(([head, round]) => `${head} round ${round}`)
        .join(', ');
      return `${spec} · ${waiting}${rounds ? ` · ${rounds}` : ''}`;
    }
  }
}
