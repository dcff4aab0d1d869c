// <home>/config.json: agent platforms (built-ins tuned in place, or custom commands by argv) and
// engine settings. Every bad value is refused with its field and the fix.
import { existsSync } from 'node:fs';
import { z } from 'zod';
import { DEFAULT_ENSEMBLE_CONCURRENCY } from '../domain/defaults';
import { invalidInput, issuesFromZod } from '../domain/errors';
import { NotifyReceivers, type NotifyReceiver } from '../domain/notify';
import { writePrivateFile } from '../private-files';
import { readUserFile } from '../user-files';
import { ARGV_PLACEHOLDERS, placeholdersOf } from './command';
import { configFilePath } from './config-file';

export const BUILTIN_PLATFORMS = ['claude', 'codex', 'opencode', 'gemini'] as const;

const Env = z.record(z.string(), z.string()).superRefine((env, ctx) => {
  for (const name of Object.keys(env).filter((key) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(key))) {
    ctx.addIssue({ code: 'custom', path: [name], message: 'environment variable names use letters, digits and "_"; rename it' });
  }
});
const ArgvEntry = z.union([z.string(), z.array(z.string()).min(1, 'an argument group needs at least one argument')]);

export const PlatformEntry = z
  .object({
    argv: z
      .array(ArgvEntry)
      .min(1, 'argv needs at least the command')
      .optional()
      .describe(`A custom command: argv template with ${ARGV_PLACEHOLDERS.map((p) => `{{${p}}}`).join(' ')}`),
    command: z.string().min(1).optional().describe('A built-in platform: the binary to run instead of its default name'),
    args: z.array(z.string()).optional().describe('A built-in platform: arguments added before the prompt'),
    env: Env.optional().describe('Environment for the CLI (e.g. its base URL and API key)'),
    model: z.string().min(1).optional().describe('The model used when a node names none'),
  })
  .strict()
  .superRefine((entry, ctx) => {
    if (entry.argv && (entry.command !== undefined || entry.args !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['argv'],
        message: 'give either argv (a custom command) or command/args (tuning a built-in), not both',
      });
    }
    for (const [index, value] of (entry.argv ?? []).flat().entries()) {
      const unknown = placeholdersOf(value).filter((name) => !(ARGV_PLACEHOLDERS as readonly string[]).includes(name));
      if (unknown.length) {
        ctx.addIssue({
          code: 'custom',
          path: ['argv', index],
          message: `unknown placeholder {{${unknown[0]}}}; use ${ARGV_PLACEHOLDERS.map((p) => `{{${p}}}`).join(' ')}`,
        });
      }
    }
  });
export type PlatformEntry = z.infer<typeof PlatformEntry>;

export const CanopyFileConfig = z
  .object({
    platforms: z.record(z.string().regex(/^[a-z0-9_-]+$/i, 'platform names use letters, digits, "_" and "-"'), PlatformEntry).default({}),
    ensemble_concurrency: z
      .number()
      .int()
      .min(1)
      .max(64)
      .optional()
      .describe('Ensemble members running at once on this host, across every loop and ensemble; more wait queued (default 4)'),
    confine: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe(
        "Run every agent and check confined by bubblewrap: canopy's home hidden but for the run's own directory, a private /tmp, no other process visible (default true where bwrap works; false runs them unconfined)",
      ),
    notify: NotifyReceivers.optional().describe(
      "Receivers told of every loop's events: [{ url, events, format: json|slack|ntfy }] (a loop's settings may add its own)",
    ),
  })
  .strict()
  .superRefine((config, ctx) => {
    for (const [name, entry] of Object.entries(config.platforms)) {
      if (!entry.argv && !(BUILTIN_PLATFORMS as readonly string[]).includes(name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['platforms', name],
          message: `'${name}' is not a built-in platform (${BUILTIN_PLATFORMS.join(', ')}); give "argv" to run your own command`,
        });
      }
    }
  });
export type CanopyFileConfig = z.infer<typeof CanopyFileConfig>;

/** Writes `<home>/config.json` owner-only, as it may hold API keys. */
export function writeFileConfig(home: string, config: Record<string, unknown>): void {
  writePrivateFile(configFilePath(home), JSON.stringify(config, null, 2));
}

export function loadFileConfig(home: string): CanopyFileConfig {
  const file = configFilePath(home);
  if (!existsSync(file)) return CanopyFileConfig.parse({});
  let raw: unknown;
  try {
    raw = JSON.parse(readUserFile(file));
  } catch (error) {
    throw invalidInput(file, [{ field: '(file)', message: `is not valid JSON (${(error as Error).message}); fix the syntax` }]);
  }
  const parsed = CanopyFileConfig.safeParse(raw);
  if (!parsed.success) throw invalidInput(file, issuesFromZod(parsed.error));
  return parsed.data;
}

/** config.json's notification receivers; a config.json that cannot be read names none (`canopy doctor` says why it cannot). */
export function notifyReceivers(home: string): NotifyReceiver[] {
  try {
    return loadFileConfig(home).notify ?? [];
  } catch {
    return [];
  }
}

/** How many ensemble members this host runs at once: config.json's `ensemble_concurrency`, else the default. */
export function memberCap(home: string): number {
  return loadFileConfig(home).ensemble_concurrency ?? DEFAULT_ENSEMBLE_CONCURRENCY;
}
