// The check kind: a shell command run in the workdir, judged by its exit code.
import { z } from 'zod';
import { IdleTimeoutMinutes, ProcessText, TimeoutMinutes } from '../domain/common';
import { CHECK_PLACEHOLDERS } from '../graph/templates';
import { HEAD_BUDGET, NOTHING, PASS_FAIL_ERROR, type NodeKindRules } from './kind';

export const CheckConfig = z
  .object({
    command: ProcessText.min(1, 'must not be empty').describe('Shell command run with bash -c in the workdir'),
    timeout_minutes: TimeoutMinutes.optional().describe('Kill the command after this long (default 10)'),
    idle_timeout_minutes: IdleTimeoutMinutes.optional(),
    ...HEAD_BUDGET,
  })
  .strict();
export type CheckConfig = z.infer<typeof CheckConfig>;

export const checkKind: NodeKindRules = {
  kind: 'check',
  config: CheckConfig,
  templates: (config) => [{ key: 'command', text: config.command, allowed: CHECK_PLACEHOLDERS }],
  problems: NOTHING,
  outcomes: () => PASS_FAIL_ERROR,
};
