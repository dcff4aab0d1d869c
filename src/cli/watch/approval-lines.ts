// A waiting approval as plain text lines, for `loop watch` (its view and its log) and `loop run --wait`.
import type { InboxItem } from '../../client/approvals-service';
import { rejectCommand } from '../text/approvals';

/** A waiting approval as lines: its node and since when, its message (redacted by the inbox), and the commands that decide it. */
export function approvalLines(item: InboxItem): string[] {
  const deadline = item.deadline ? `; decides by itself at ${item.deadline}` : '';
  return [
    `approval ${item.node} waits for a person since ${item.waiting_since}${deadline}:`,
    ...item.message.split('\n').map((line) => `  | ${line}`),
    `  approve  ${item.decide}`,
    `  reject   ${rejectCommand(item)}`,
  ];
}
