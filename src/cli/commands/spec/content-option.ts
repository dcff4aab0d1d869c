// A spec's content from `--content <text>` or `--file <path>`, and its list from `--loop <id>` or `--backlog`.
import { badOption, readText } from '../loop/json-option';

/** The content given, or undefined when neither option was. */
export function readContent(options: { content?: string; file?: string }): string | undefined {
  if (options.content !== undefined && options.file !== undefined) throw badOption('--content', 'give --content or --file, not both');
  return options.file === undefined ? options.content : readText('--file', options.file);
}

/** The loop id, null for the backlog, or undefined when neither option was given. */
export function readList(options: { loop?: string; backlog?: boolean }): string | null | undefined {
  if (options.loop !== undefined && options.backlog) throw badOption('--backlog', 'give --loop or --backlog, not both');
  return options.backlog ? null : options.loop;
}
