// The agent kind: an agent CLI run on a prompt in the workdir.
import { z } from 'zod';
import { IdleTimeoutMinutes, ProcessText, TimeoutMinutes } from '../domain/common';
import { AGENT_PLACEHOLDERS } from '../graph/templates';
import { HEAD_BUDGET, NOTHING, PASS_FAIL_ERROR, type NodeKindRules } from './kind';

/** The prompt a resumed session gets when the node sets none: what the last round left to fix. */
export const DEFAULT_RESUME_PROMPT = '{{previous_feedback}}';

export const AgentConfig = z
  .object({
    platform: z.string().min(1).optional().describe('Agent platform from config.json (claude, opencode, codex, gemini, …)'),
    model: z.string().min(1).optional().describe('Model passed to the platform as {{model}}'),
    prompt_template: ProcessText.min(1, 'must not be empty').describe('Prompt with {{placeholders}}'),
    timeout_minutes: TimeoutMinutes.optional().describe('Kill the agent after this long (default 30)'),
    idle_timeout_minutes: IdleTimeoutMinutes.optional(),
    commit_rights: z.boolean().optional().describe('This node may move git HEAD; enables commit-rights enforcement'),
    require_report: z.boolean().optional().describe('A silent exit 0 fails with no_report'),
    resume: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe("Run again in the same spec, continue the CLI's session of the node's last run instead of starting cold (default false)"),
    resume_prompt: ProcessText.min(1, 'must not be empty')
      .optional()
      .describe(`What a resumed session is told, with {{placeholders}} (default ${DEFAULT_RESUME_PROMPT})`),
    ...HEAD_BUDGET,
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfig>;

export const agentKind: NodeKindRules = {
  kind: 'agent',
  config: AgentConfig,
  templates: (config) => [
    { key: 'prompt_template', text: config.prompt_template, allowed: AGENT_PLACEHOLDERS },
    { key: 'resume_prompt', text: config.resume_prompt, allowed: AGENT_PLACEHOLDERS },
  ],
  problems: NOTHING,
  outcomes: () => PASS_FAIL_ERROR,
};
