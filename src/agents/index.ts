// The agent platforms canopy knows: the built-in adapters, tuned by config.json, and custom commands.
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';
import { findOnPath } from '../process/find-on-path';
import { claude } from './claude';
import { codex } from './codex';
import { commandAdapter } from './command';
import { BUILTIN_PLATFORMS, loadFileConfig } from './config';
import { gemini } from './gemini';
import { opencode } from './opencode';
import type { AgentAdapter, PlatformSettings } from './types';

const ADAPTERS: Record<(typeof BUILTIN_PLATFORMS)[number], AgentAdapter> = { claude, codex, opencode, gemini };

export interface Platform {
  name: string;
  adapter: AgentAdapter;
  settings: PlatformSettings;
}

/**
 * Every platform by name: the built-ins, each tuned or replaced by its config.json entry, then the
 * custom ones. A Map, since the names come from nodes and config files: one called `constructor`
 * would otherwise find what every object inherits.
 */
export function loadPlatforms(home: string): Map<string, Platform> {
  const entries = loadFileConfig(home).platforms;
  const names = [...new Set([...BUILTIN_PLATFORMS, ...Object.keys(entries)])];
  return new Map(
    names.map((name) => {
      const entry = entries[name] ?? {};
      const settings: PlatformSettings = {
        command: entry.command ?? null,
        args: entry.args ?? [],
        env: entry.env ?? {},
        model: entry.model ?? null,
      };
      const adapter = entry.argv ? commandAdapter(entry.argv) : ADAPTERS[name as keyof typeof ADAPTERS];
      return [name, { name, adapter, settings }];
    }),
  );
}

/** The model a platform runs for a node: the node's, else the platform's default from config.json; null leaves it to the CLI. */
export function platformModel(platform: Platform, nodeModel: string | null | undefined): string | null {
  return nodeModel ?? platform.settings.model;
}

/** The binary a platform runs, as found on PATH or given as a path. */
export function platformBinary(platform: Platform): string {
  return platform.settings.command ?? platform.adapter.binary;
}

/** A command given as a path is checked where it is; a bare name is looked up on PATH. */
export async function locateCommand(command: string): Promise<string | null> {
  if (!command.includes(path.sep)) return findOnPath(command, process.env.PATH ?? '');
  return access(command, constants.X_OK).then(
    () => command,
    () => null,
  );
}
