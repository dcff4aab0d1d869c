// A CLI's home, made again for each run of a node in a directory of the node's own: every entry of the CLI's
// config directory linked to the user's own, except its settings file, which holds the user's settings with
// canopy's added. The CLI reads it as its user settings, which no CLI checks for ownership, so
// canopy's MCP server reaches it whoever runs the worker and wherever canopy's home is.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { CanopyError } from '../domain/errors';
import { writeRunFile } from '../process/run-directory';

export interface PrivateHome {
  /** The variable the CLI takes its home from; the run's copy is given in it. */
  variable: string;
  /** The CLI's config directory inside a home, and its settings file there. */
  configDir: string;
  settingsFile: string;
  /** Other files the CLI reads from the home itself (not its config directory), linked too. */
  homeFiles: string[];
  /** Directories of the config directory where the CLI keeps what must outlive the run: made in the user's when absent, so the link keeps it. */
  keptDirs?: string[];
  /** The run's settings made from the user's (an empty object when they have none). */
  settings(user: Record<string, unknown>): Record<string, unknown>;
}

/**
 * Makes the run's home at `home` from the one `env` (the agent's environment) points the CLI at, and returns
 * the variable that points it at the copy instead.
 */
export function makePrivateHome(spec: PrivateHome, home: string, env: NodeJS.ProcessEnv): Record<string, string> {
  const userHome = env[spec.variable] || env.HOME || os.homedir();
  const userConfig = path.join(userHome, spec.configDir);
  const config = path.join(home, spec.configDir);
  const settings = spec.settings(readSettings(path.join(userConfig, spec.settingsFile)));
  // A launch the run makes again (a session the CLI could not continue) makes the home anew.
  rmSync(home, { recursive: true, force: true });
  mkdirSync(config, { recursive: true, mode: 0o700 });
  for (const name of spec.keptDirs ?? []) mkdirSync(path.join(userConfig, name), { recursive: true, mode: 0o700 });
  for (const name of spec.homeFiles) linkIfPresent(path.join(userHome, name), path.join(home, name));
  const entries = existsSync(userConfig) ? readdirSync(userConfig) : [];
  for (const name of entries.filter((entry) => entry !== spec.settingsFile))
    symlinkSync(path.join(userConfig, name), path.join(config, name));
  writeRunFile(config, spec.settingsFile, JSON.stringify(settings, null, 2));
  return { [spec.variable]: home };
}

function linkIfPresent(target: string, link: string): void {
  if (existsSync(target)) symlinkSync(target, link);
}

/** The user's settings (JSON with comments, as the CLIs read them); none when the file is absent. */
function readSettings(file: string): Record<string, unknown> {
  if (!existsSync(file)) return {};
  const errors: ParseError[] = [];
  const settings: unknown = parse(readFileSync(file, 'utf8'), errors, { allowTrailingComma: true });
  if (errors.length || !isObject(settings)) {
    const problem = errors.length ? `${printParseErrorCode(errors[0].error)} at offset ${errors[0].offset}` : 'not a JSON object';
    throw new CanopyError(
      'invalid_input',
      `The agent's settings file ${file} cannot be read (${problem}); fix it, as the CLI cannot read it either.`,
    );
  }
  return settings;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
