// Template placeholders: which names each kind of text may use, finding them, and filling them in.
import type { HookEvent } from '../domain/hooks';

/** What every node's texts may use. */
const NODE_PLACEHOLDERS = [
  'loop_name',
  'workdir',
  'spec_id',
  'spec_name',
  'spec_content',
  'node_id',
  'node_name',
  'round',
  'previous_output',
  'previous_feedback',
] as const;

/** An agent's prompt may also place the remarks a person sent the running loop (`canopy loop feedback`). */
export const AGENT_PLACEHOLDERS = [...NODE_PLACEHOLDERS, 'human_feedback'] as const;

export const CHECK_PLACEHOLDERS = [...NODE_PLACEHOLDERS, 'spec_start_head', 'spec_committed_head', 'spec_start_dirty'] as const;

/** An approval's message may also show what changed in the workdir since the spec started. */
export const APPROVAL_PLACEHOLDERS = [...NODE_PLACEHOLDERS, 'changes'] as const;

/** Where a prompt with no {{human_feedback}} gets the remarks: appended under this heading. */
export const FEEDBACK_HEADING = '## Feedback from a person';

/**
 * A prompt given the remarks a person sent: in place of {{human_feedback}}, or appended under a
 * heading when the template has no such placeholder; unchanged when there are none.
 */
export function withHumanFeedback(template: string, values: Record<string, string>, remarks: readonly string[]): string {
  const feedback = remarks.join('\n\n');
  const rendered = renderTemplate(template, { ...values, human_feedback: feedback });
  if (feedback === '' || placeholdersIn(template).includes('human_feedback')) return rendered;
  return `${rendered}\n\n${FEEDBACK_HEADING}\n\n${feedback}\n`;
}

const EVERY_HOOK = ['loop_name', 'loop_id', 'workdir'] as const;

/** The values each event gives its hooks: an agent hook's placeholders, a command hook's CANOPY_HOOK_* variables. */
export const HOOK_PLACEHOLDERS: Readonly<Record<HookEvent, readonly string[]>> = {
  on_completed: [...EVERY_HOOK, 'completed_specs'],
  on_failed: [...EVERY_HOOK, 'node', 'failure_kind', 'reason', 'spec_name'],
  on_blocked: [...EVERY_HOOK, 'blocker', 'node', 'spec_name'],
  on_spec_completed: [...EVERY_HOOK, 'spec_name', 'spec_id', 'completed_specs'],
};

// Only identifier-shaped names count, so foreign template syntax in a check command, such as
// `docker inspect --format '{{.State.Running}}'`, is left alone rather than refused.
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

/** Distinct placeholder names in `text`, in order of first use. */
export function placeholdersIn(text: string): string[] {
  return [...new Set(Array.from(text.matchAll(PLACEHOLDER), (match) => match[1]))];
}

export function unknownPlaceholders(text: string, allowed: readonly string[]): string[] {
  return placeholdersIn(text).filter((name) => !allowed.includes(name));
}

/** What stands for a NUL byte in a value a process receives: U+2400 SYMBOL FOR NULL. */
const NUL_STAND_IN = '\u2400';

/**
 * Output as a process can receive it: argv strings and environment variables end at a NUL byte, so
 * each NUL becomes ␀, in the files of large values too, so the value reads the same whichever way
 * it travels. The output itself is stored whole; only what is handed on changes.
 */
export function receivable(value: string): string {
  return value.replaceAll('\0', NUL_STAND_IN);
}

/** Replaces each placeholder that has a value; values are inserted once, never expanded again. */
export function renderTemplate(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (placeholder, name: string) => (Object.hasOwn(values, name) ? values[name] : placeholder));
}

/** A command with every `{{name}}` turned into `${CANOPY_NAME}` (or the variable given), so values travel only in the environment. */
export function toShellScript(command: string, variableOf: (name: string) => string = placeholderVariable): string {
  return command.replace(PLACEHOLDER, (_placeholder, name: string) => `\${${variableOf(name)}}`);
}

/** The environment that carries placeholder values into a script made by toShellScript. */
export function placeholderEnv(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [placeholderVariable(name), value]));
}

export function placeholderVariable(name: string): string {
  return `CANOPY_${name.toUpperCase()}`;
}

/** A hook's value travels as CANOPY_HOOK_<NAME>, apart from the node placeholders' variables. */
export function hookVariable(name: string): string {
  return placeholderVariable(`hook_${name}`);
}
