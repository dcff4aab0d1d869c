// The one-line inputs of `canopy tui` that edit a loop's graph, read into the requests of the graph
// service (`loop node add`, `loop edge add`). Only the line's shape is checked here; the service
// judges kinds, names, blueprints, configs and conditions, with its own messages.
import { CanopyError } from '../../domain/errors';
import { parseJsonObject } from '../json-object';

export const NODE_SYNTAX = 'kind name {json config}  or  [kind] name @blueprint [{json overrides}]';
export const EDGE_SYNTAX = 'source target [pass|fail|error|always|route] [loopback]  (condition pass when left out)';

/** A JSON object typed or edited by a person; refused with the field `(json)` otherwise. */
export function jsonObject(text: string): Record<string, unknown> {
  return parseJsonObject(text, { subject: 'The text', field: '(json)' });
}

/** `check tests {"command":"npm test"}`, `agent impl @implementer-claude`, `impl @implementer-claude {"timeout_minutes":30}`. */
export function nodeRequest(line: string): Record<string, unknown> {
  const brace = line.indexOf('{');
  const words = wordsOf(brace < 0 ? line : line.slice(0, brace));
  const json = brace < 0 ? undefined : jsonObject(line.slice(brace));
  const blueprint = words.at(-1)?.startsWith('@') ? words.pop()!.slice(1) : undefined;
  if (words.length < 1 || words.length > 2) throw shapeRefused(NODE_SYNTAX);
  const [kind, name] = words.length === 2 ? words : [undefined, words[0]];
  return { kind, name, blueprint, [blueprint === undefined ? 'config' : 'config_overrides']: json };
}

/** `tests fixer fail`, `fixer implement always loopback`. */
export function edgeRequest(line: string): Record<string, unknown> {
  const words = wordsOf(line);
  if (words.length < 2 || words.length > 4) throw shapeRefused(EDGE_SYNTAX);
  const [source, target, condition, type] = words;
  return { source, target, condition, type };
}

function wordsOf(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

function shapeRefused(syntax: string): CanopyError {
  return new CanopyError('invalid_input', `Type ${syntax}.`);
}
