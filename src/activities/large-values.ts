// Values too large for argv or one environment variable (Linux caps each string at 128 KiB) go to
// files in the node run's private directory; the process gets the path and a marked excerpt.
import { placeholderEnv, placeholderVariable } from '../graph/templates';
import { openRunDirectory, writeRunFile } from '../process/run-directory';

/** Largest value passed inline, in bytes: half the kernel's per-string cap leaves room for the rest. */
export const INLINE_VALUE_BYTES = 64 * 1024;
const EXCERPT_BYTES = 8 * 1024;

export interface RunFiles {
  home: string;
  nodeRunId: string;
}

/**
 * The environment carrying placeholder values into `script` (a check's or a hook's): each value over
 * the bound that the script names (its variable, or that variable's `_FILE`) is written to
 * `<name>.txt` in the run directory, its variable holds a marked excerpt and `CANOPY_<NAME>_FILE`
 * the file's path. One the script does not name gets the excerpt alone: a file nobody reads could
 * be megabytes on a disk with no room for them.
 */
export function placeholderEnvironment(run: RunFiles, values: Record<string, string>, script: string): Record<string, string> {
  const entries = Object.entries(values);
  const env = placeholderEnv(Object.fromEntries(entries.filter(([, value]) => fitsInline(value))));
  for (const [name, value] of entries.filter(([, value]) => !fitsInline(value))) {
    const variable = placeholderVariable(name);
    const named = script.includes(variable);
    if (named) env[`${variable}_FILE`] = writeRunFile(openRunDirectory(run.home, run.nodeRunId), `${name}.txt`, value);
    const where = named ? `is in $${variable}_FILE` : 'is not written, as the command does not name it';
    env[variable] = `${excerptOf(value)}\n[canopy: truncated; the full value (${Buffer.byteLength(value)} bytes) ${where}]`;
  }
  return env;
}

/**
 * An agent's prompt, written whole to `prompt.md` in the run directory (`file`, which the CLIs that take
 * their prompt on standard input read, and `CANOPY_PROMPT_FILE` names), and as a command line may carry
 * it (`prompt`): the prompt itself when it fits, otherwise a short one pointing at that file.
 */
export function agentPrompt(run: RunFiles, prompt: string): { prompt: string; file: string; env: Record<string, string> } {
  const file = writeRunFile(openRunDirectory(run.home, run.nodeRunId), 'prompt.md', prompt);
  const env = { CANOPY_PROMPT_FILE: file };
  if (fitsInline(prompt)) return { prompt, file, env };
  return {
    prompt: `Your instructions are too long for the command line (${Buffer.byteLength(prompt)} bytes), so they are in the file ${file}. Read that whole file first and follow it as your prompt.`,
    file,
    env,
  };
}

function fitsInline(value: string): boolean {
  return value.length <= INLINE_VALUE_BYTES / 4 || Buffer.byteLength(value) <= INLINE_VALUE_BYTES;
}

function excerptOf(value: string): string {
  return Buffer.from(value.slice(0, EXCERPT_BYTES)).subarray(0, EXCERPT_BYTES).toString('utf8');
}
