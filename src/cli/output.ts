// Printing a command's result for people or as JSON, and turning errors into a clear exit.
import type { Command } from 'commander';
import { CanopyError } from '../domain/errors';

export interface OutputOptions {
  json?: boolean;
}

/** Prints the result once it is built: as JSON with --json (which escapes controls itself), else through `human`. */
export function emit<T>(result: T, options: OutputOptions, human: (result: T) => string): void {
  process.stdout.write(options.json ? JSON.stringify(result, null, 2) + '\n' : terminalSafe(human(result)) + '\n');
}

/** Control characters, which stored text may hold (agents' output, rows written before names were checked). */
const UNSAFE_CONTROL = /[\p{Cc}\u2028\u2029]/gu;
const LAYOUT = new Set(['\n', '\t']);

/**
 * Stored text as a terminal may show it: an escape sequence in a name or an output would
 * otherwise clear or rewrite the screen of whoever lists it. Controls are shown as `\x1b`-style
 * escapes; `multiline: false` (a table cell) escapes newlines and tabs too.
 */
export function terminalSafe(text: string, { multiline = true } = {}): string {
  return text.replace(UNSAFE_CONTROL, (char) => {
    if (multiline && LAYOUT.has(char)) return char;
    const code = char.charCodeAt(0);
    return code > 0xff ? `\\u${code.toString(16)}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
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
    process.stderr.write(`canopy: ${terminalSafe(message)}\n`);
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
  const cells = rows.map((row) => row.map((cell) => terminalSafe(cell, { multiline: false })));
  const widths = cells[0].map((_, col) => Math.max(...cells.map((row) => (row[col] ?? '').length)));
  return cells
    .map((row) =>
      row
        .map((cell, col) => cell.padEnd(widths[col]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
