// The approval kind: the walk stops and asks a person, who approves (the node passes) or rejects with a
// comment (it fails, and the comment is its output for the next node's {{previous_feedback}}).
import { z } from 'zod';
import { ProcessText } from '../domain/common';
import { APPROVAL_PLACEHOLDERS } from '../graph/templates';
import { HEAD_BUDGET, NOTHING, PASS_FAIL, type NodeKindRules } from './kind';

export const APPROVAL_DECISIONS = ['approve', 'reject'] as const;
export type ApprovalDecisionKind = (typeof APPROVAL_DECISIONS)[number];

/** A year: the longest an approval may wait before its on_timeout decides. */
const MAX_WAIT_MINUTES = 365 * 24 * 60;

export const ApprovalConfig = z
  .object({
    message_template: ProcessText.min(1, 'must not be empty').describe(
      'What the person is asked, with the agent placeholders and {{changes}} (git diff --stat of the workdir since the spec started, new files included)',
    ),
    timeout_minutes: z
      .number()
      .positive('must be a positive number of minutes')
      .max(MAX_WAIT_MINUTES, `must be at most ${MAX_WAIT_MINUTES} minutes (a year)`)
      .optional()
      .describe('Decide by itself after this long, as on_timeout says (default: wait for ever)'),
    on_timeout: z.enum(APPROVAL_DECISIONS).optional().describe('The decision a timeout makes (default reject)'),
    ...HEAD_BUDGET,
  })
  .strict();
export type ApprovalConfig = z.infer<typeof ApprovalConfig>;

export const approvalKind: NodeKindRules = {
  kind: 'approval',
  config: ApprovalConfig,
  templates: (config) => [{ key: 'message_template', text: config.message_template, allowed: APPROVAL_PLACEHOLDERS }],
  problems: NOTHING,
  outcomes: () => PASS_FAIL,
};
