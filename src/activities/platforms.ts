// Agent platforms: how to invoke each agent CLI, from built-in defaults and <home>/config.json.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { invalidInput, issuesFromZod } from '../domain/errors';

/** A group of arguments is dropped whole when a placeholder in it has no value (e.g. no model). */
const ArgvEntry = z.union([z.string(), z.array(z.string()).min(1)]);

export const Platform = z
  .object({
    argv: z
      .array(ArgvEntry)
      .min(1, 'argv needs at least the command')
      .describe('Command and arguments with {{prompt}} {{model}} {{mcp_config}} {{workdir}}'),
    env: z.record(z.string(), z.string()).default({}),
  })
  .strict();
export type Platform = z.infer<typeof Platform>;

export const CanopyFileConfig = z
  .object({
    platforms: z.record(z.string().regex(/^[a-z0-9_-]+$/i, 'platform names use letters, digits, "_" and "-"'), Platform).default({}),
    ensemble_concurrency: z.number().int().min(1).max(64).optional().describe('Ensemble members started at once (default 4)'),
  })
  .strict();
export type CanopyFileConfig = z.infer<typeof CanopyFileConfig>;

export const DEFAULT_PLATFORMS: Record<string, Platform> = {
  claude: {
    argv: ['claude', '-p', '{{prompt}}', ['--model', '{{model}}'], ['--mcp-config', '{{mcp_config}}'], '--dangerously-skip-permissions'],
    env: {},
  },
  opencode: { argv: ['opencode', 'run', ['--model', '{{model}}'], '{{prompt}}'], env: {} },
  codex: { argv: ['codex', 'exec', ['--model', '{{model}}'], '--full-auto', '{{prompt}}'], env: {} },
  gemini: { argv: ['gemini', ['--model', '{{model}}'], '--yolo', '-p', '{{prompt}}'], env: {} },
};

export function configFilePath(home: string): string {
  return path.join(home, 'config.json');
}

export function loadFileConfig(home: string): CanopyFileConfig {
  const file = configFilePath(home);
  if (!existsSync(file)) return CanopyFileConfig.parse({});
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw invalidInput(file, [{ field: '(file)', message: `is not valid JSON (${(error as Error).message}); fix the syntax` }]);
  }
  const parsed = CanopyFileConfig.safeParse(raw);
  if (!parsed.success) throw invalidInput(file, issuesFromZod(parsed.error));
  return parsed.data;
}

/** Built-in platforms overridden, entry by entry, by the user's config.json. */
export function loadPlatforms(home: string): Record<string, Platform> {
  return { ...DEFAULT_PLATFORMS, ...loadFileConfig(home).platforms };
}

export interface ArgvValues {
  prompt: string;
  model: string;
  mcp_config: string;
  workdir: string;
}

export function renderArgv(platform: Platform, values: ArgvValues): string[] {
  const fill = (text: string) => text.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => values[name as keyof ArgvValues] ?? '');
  const hasEmptyPlaceholder = (text: string) => [...text.matchAll(/\{\{\s*(\w+)\s*\}\}/g)].some((m) => !values[m[1] as keyof ArgvValues]);
  return platform.argv.flatMap((entry) => {
    if (typeof entry === 'string') return [fill(entry)];
    return entry.some(hasEmptyPlaceholder) ? [] : entry.map(fill);
  });
}
