// Event hooks: what a loop runs when one of its runs completes, fails or blocks, or a spec completes.
import { z } from 'zod';
import { IdleTimeoutMinutes, ProcessText, TimeoutMinutes } from './common';

import { HOOK_EVENTS } from './vocabulary';

export { HOOK_EVENTS };
export const HookEvent = z.enum(HOOK_EVENTS);
export type HookEvent = z.infer<typeof HookEvent>;

const AGENT_FIELDS = ['platform', 'model', 'prompt'] as const;

/**
 * One hook: an agent run (platform, prompt, optional model) or a shell command, never both. One
 * object with a refinement rather than a union, so a hook with both or neither is refused naming
 * the field to change instead of with every way two union members failed.
 */
export const Hook = z
  .object({
    platform: z.string().min(1).optional().describe('Agent hook: the agent platform from config.json that runs it'),
    model: z.string().min(1).optional().describe('Agent hook: model passed to the platform (default: the platform’s own)'),
    prompt: ProcessText.min(1, 'must not be empty').optional().describe('Agent hook: prompt, with the {{placeholders}} of its event'),
    command: ProcessText.min(1, 'must not be empty')
      .optional()
      .describe(
        'Command hook: run with bash -c in the workdir; its event’s values arrive only as CANOPY_HOOK_* environment variables ({{placeholders}} become ${CANOPY_HOOK_…} references)',
      ),
    timeout_minutes: TimeoutMinutes.optional().describe('Kill the hook after this long (default 30 for an agent, 10 for a command)'),
    idle_timeout_minutes: IdleTimeoutMinutes.optional(),
  })
  .strict()
  .superRefine((hook, ctx) => {
    const agentFields = AGENT_FIELDS.filter((field) => hook[field] !== undefined);
    if (hook.command !== undefined) {
      for (const field of agentFields)
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: 'a command hook takes no agent fields; remove it, or remove command for an agent hook',
        });
      return;
    }
    if (hook.prompt === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['prompt'],
        message: 'a hook needs command (a shell command) or prompt and platform (an agent)',
      });
    if (hook.platform === undefined)
      ctx.addIssue({ code: 'custom', path: ['platform'], message: 'an agent hook needs the platform that runs it, e.g. claude' });
  });
export type Hook = z.infer<typeof Hook>;

export type AgentHook = Required<Pick<Hook, 'platform' | 'prompt'>> & Pick<Hook, 'model' | 'timeout_minutes' | 'idle_timeout_minutes'>;
export type CommandHook = Required<Pick<Hook, 'command'>> & Pick<Hook, 'timeout_minutes' | 'idle_timeout_minutes'>;

export function isCommandHook(hook: Hook): hook is CommandHook {
  return hook.command !== undefined;
}

const hookList = (when: string) => z.array(Hook).optional().describe(`Hooks run in order, each once, ${when}`);

export const LoopHooks = z
  .object({
    on_completed: hookList('when a run completes'),
    on_failed: hookList('when a run fails'),
    on_blocked: hookList('each time a run blocks, before it waits'),
    on_spec_completed: hookList('each time a spec completes'),
  })
  .strict();
export type LoopHooks = z.infer<typeof LoopHooks>;

/** The hook a node run records: `on_failed[0]`. */
export function hookRunName(event: HookEvent, index: number): string {
  return `${event}[${index}]`;
}
