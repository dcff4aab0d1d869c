// Printing a command's result for people or as JSON, and turning errors into a clear exit.
import type { Command } from 'commander';
import { CanopyError } from '../domain/errors';

export interface OutputOptions {
  json?: boolean;
}

/** Prints the result once it is built: as JSON with --json, else through `human`. */
export function emit<T>(result: T, options: OutputOptions, human: (result: T) => string): void {
  process.stdout.write(options.json ? JSON.stringify(result, null, 2) + '\n' : human(result) + '\n');
}

export function reportError(error: unknown, options: OutputOptions): void {
  const canopy = error instanceof CanopyError ? error : null;
  const message = error instanceof Error ? error.message : String(error);
  if (options.json) {
    const body = {
      error: { code: canopy?.code ?? 'error', message: canopy ? message.split('\n')[0] : message, issues: canopy?.issues ?? [] },
    };
    process.stderr.write(JSON.stringify(body, null, 2) + '\n');
  } else {
    process.stderr.write(`canopy: ${message}\n`);
  }
  process.exitCode = canopy?.code === 'not_found' ? 3 : 2;
}

/** Wraps a command action so every failure becomes a clear message and a non-zero exit. */
export function action<A extends unknown[]>(run: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const command = args[args.length - 1] as Command;
    const options: OutputOptions = command.opts();
    try {
      await run(...args);
    } catch (error) {
      reportError(error, options);
    }
  };
}

export function table(rows: string[][]): string {
  if (rows.length === 0) return '';
  const widths = rows[0].map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, col) => cell.padEnd(widths[col]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
