// Template placeholders: which names each kind of text may use, finding them, and filling them in.

export const AGENT_PLACEHOLDERS = [
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

export const CHECK_PLACEHOLDERS = [...AGENT_PLACEHOLDERS, 'spec_start_head', 'spec_committed_head', 'spec_start_dirty'] as const;

export const HOOK_PLACEHOLDERS = ['loop_name', 'workdir', 'completed_specs'] as const;

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

/** Replaces each placeholder that has a value; values are inserted once, never expanded again. */
export function renderTemplate(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (placeholder, name: string) => (Object.hasOwn(values, name) ? values[name] : placeholder));
}

/** A check command with every `{{name}}` turned into `${CANOPY_NAME}`, so values travel only in the environment. */
export function toShellScript(command: string): string {
  return command.replace(PLACEHOLDER, (_placeholder, name: string) => `\${${placeholderVariable(name)}}`);
}

/** The environment that carries placeholder values into a script made by toShellScript. */
export function placeholderEnv(values: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(values).map(([name, value]) => [placeholderVariable(name), value]));
}

export function placeholderVariable(name: string): string {
  return `CANOPY_${name.toUpperCase()}`;
}
