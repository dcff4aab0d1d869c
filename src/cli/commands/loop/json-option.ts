// Options that carry a JSON object inline (`--config '<json>'`) or in a file (`--config-file <path>`).
import type { Command } from 'commander';
import { invalidInput } from '../../../domain/errors';
import { readUserFile } from '../../../user-files';

/** Adds `--<name> <json>` and `--<name>-file <path>`. */
export function jsonOptions(command: Command, name: string, what: string): Command {
  return command.option(`--${name} <json>`, `${what}, as a JSON object`).option(`--${name}-file <path>`, `${what}, from a JSON file`);
}

/** The object given by `--<name>` or `--<name>-file`, or undefined when neither was given. */
export function readJsonOption(options: Record<string, unknown>, name: string): Record<string, unknown> | undefined {
  const key = name.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
  const inline = options[key] as string | undefined;
  const file = options[`${key}File`] as string | undefined;
  if (inline !== undefined && file !== undefined) throw badOption(`--${name}`, `give --${name} or --${name}-file, not both`);
  if (inline === undefined && file === undefined) return undefined;
  const option = file === undefined ? `--${name}` : `--${name}-file`;
  const value = parseJson(option, file === undefined ? inline! : readText(option, file));
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badOption(option, 'must be a JSON object ({ … })');
  return value as Record<string, unknown>;
}

/** A file an option names, or an error naming the option. */
export function readText(option: string, file: string): string {
  try {
    return readUserFile(file);
  } catch (error) {
    throw badOption(option, `cannot read ${file} (${(error as Error).message})`);
  }
}

export function badOption(option: string, message: string): Error {
  return invalidInput('The command line', [{ field: option, message }]);
}

function parseJson(option: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badOption(option, `is not valid JSON (${(error as Error).message}); quote it for the shell, e.g. '{"key": "value"}'`);
  }
}
