// Options that carry a JSON object inline (`--config '<json>'`) or in a file (`--config-file <path>`).
import type { Command } from 'commander';
import { invalidInput } from '../../../domain/errors';
import { readUserFile } from '../../../user-files';
import { parseJsonObject } from '../../json-object';

const COMMAND_LINE = 'The command line';

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
  return parseJsonObject(file === undefined ? inline! : readText(option, file), {
    subject: COMMAND_LINE,
    field: option,
    syntaxHint: `quote it for the shell, e.g. '{"key": "value"}'`,
  });
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
  return invalidInput(COMMAND_LINE, [{ field: option, message }]);
}
