// Issues with each node's and ensemble's own fields: names, kinds and configs, by the rules of each node's kind.
import type { z } from 'zod';
import { NodeName } from '../../domain/common';
import type { Design, DesignNode } from '../../domain/design';
import { ENSEMBLE_ONLY_SETTINGS, EnsembleInput } from '../../domain/ensemble';
import type { Issue } from '../../domain/errors';
import { NODE_KIND_RULES } from '../../node-kinds/registry';

export function nodeIssues(design: Design): Issue[] {
  return design.nodes.flatMap((node, index) => {
    const at = `nodes[${index}]`;
    return [...schemaIssues(NodeName, node.name, `${at}.name`), ...kindAndConfigIssues(node, at)];
  });
}

export function ensembleIssues(design: Design): Issue[] {
  const allowedKeys = Object.keys(EnsembleInput.shape);
  return design.ensembles.flatMap((ensemble, index) => schemaIssues(EnsembleInput, ensemble, `ensembles[${index}]`, allowedKeys));
}

function kindAndConfigIssues(node: DesignNode, at: string): Issue[] {
  const rules = NODE_KIND_RULES[node.kind];
  if (rules.refusedAlone) return [{ field: `${at}.kind`, message: rules.refusedAlone }];
  const problems = rules.problems(node.config).map(({ key, message }) => ({ field: `${at}.config.${key}`, message }));
  const allowedKeys = Object.keys(rules.config.shape);
  const misplaced = (keys: string[]) => ensembleSettingHint(keys) + agentSettingHint(keys, allowedKeys);
  return [...schemaIssues(rules.config, node.config, `${at}.config`, allowedKeys, misplaced), ...problems];
}

/** `misplaced` says where keys the schema does not take belong. */
function schemaIssues(
  schema: z.ZodType,
  value: unknown,
  field: string,
  allowedKeys: string[] = [],
  misplaced: (keys: string[]) => string = ensembleSettingHint,
): Issue[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  return result.error.issues.map((issue) => ({
    field: fieldPath(field, issue.path),
    message: withFix(issue, value, allowedKeys, misplaced),
  }));
}

/** `nodes[0].config` + ['routes', 'bug', 0] -> `nodes[0].config.routes.bug[0]`, matching how fields of a design are named. */
function fieldPath(prefix: string, path: PropertyKey[]): string {
  return path.reduce<string>((field, key) => (typeof key === 'number' ? `${field}[${key}]` : `${field}.${String(key)}`), prefix);
}

/** Zod says what is wrong; where its message leaves the fix unsaid, say it. */
function withFix(issue: z.core.$ZodIssue, value: unknown, allowedKeys: string[], misplaced: (keys: string[]) => string): string {
  if (issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined) {
    return `is required: give it a ${issue.expected} value`;
  }
  if (issue.code === 'unrecognized_keys') {
    const fix = `${issue.message}; remove ${issue.keys.length === 1 ? 'it' : 'them'} (allowed keys: ${allowedKeys.join(', ')})`;
    return fix + misplaced(issue.keys);
  }
  if (issue.code === 'invalid_key') {
    return `${issue.message}: ${issue.issues.map((inner) => inner.message).join('; ')}`;
  }
  return issue.message;
}

/** An ensemble's setting given to a node says where it belongs. */
function ensembleSettingHint(keys: string[]): string {
  const misplaced = keys.filter((key) => (ENSEMBLE_ONLY_SETTINGS as readonly string[]).includes(key));
  if (!misplaced.length) return '';
  const what = misplaced.length === 1 ? `${misplaced[0]} is an ensemble setting` : `${misplaced.join(', ')} are ensemble settings`;
  return `; ${what}: give it to an ensemble with loop_add_ensemble or loop_update_ensemble (canopy loop ensemble add|update)`;
}

/** An agent's setting given to another kind of node says which kind takes it. */
function agentSettingHint(keys: string[], allowedKeys: string[]): string {
  const agentKeys = Object.keys(NODE_KIND_RULES.agent.config.shape);
  const misplaced = keys.filter((key) => agentKeys.includes(key) && !allowedKeys.includes(key));
  if (!misplaced.length) return '';
  return `; ${misplaced.join(', ')} ${misplaced.length === 1 ? 'is an agent setting' : 'are agent settings'}: only agent nodes take ${misplaced.length === 1 ? 'it' : 'them'}`;
}

function valueAt(value: unknown, path: PropertyKey[]): unknown {
  return path.reduce<unknown>(
    (inner, key) => (inner !== null && typeof inner === 'object' ? (inner as Record<PropertyKey, unknown>)[key] : undefined),
    value,
  );
}
