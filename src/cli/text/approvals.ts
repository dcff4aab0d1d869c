// How the CLI, `loop watch` and the TUI speak of approvals: who decides unless told, the commands
// that decide a waiting one, and what a decision did.
import os from 'node:os';
import type { DecidedApproval, InboxItem } from '../../client/approvals-service';

/** The OS user, who decides unless `--by` names someone else. */
export function defaultDecider(): string {
  return os.userInfo().username;
}

/** The command that rejects a waiting approval; the inbox item's `decide` is the one that approves it. */
export function rejectCommand(item: Pick<InboxItem, 'loop_id' | 'node'>): string {
  return `canopy reject ${item.loop_id} --node ${item.node} --comment "…"`;
}

export function decidedText(decided: DecidedApproval): string {
  const verb = decided.decision === 'approve' ? 'approved' : 'rejected';
  return `Approval '${decided.node}' of loop ${decided.loop_id} ${verb} by ${decided.by}; the loop goes on.`;
}
