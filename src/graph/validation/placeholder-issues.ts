// Issues with template placeholders: prompts and check commands may use only the names the engine fills in.
import type { Design } from '../../domain/design';
import type { Issue } from '../../domain/errors';
import { NODE_KIND_RULES } from '../../node-kinds/registry';
import { AGENT_PLACEHOLDERS, unknownPlaceholders } from '../templates';

interface TemplateText {
  field: string;
  text: unknown;
  allowed: readonly string[];
}

export function placeholderIssues(design: Design): Issue[] {
  return templateTexts(design).flatMap(({ field, text, allowed }) => {
    const unknown = typeof text === 'string' ? unknownPlaceholders(text, allowed) : [];
    if (unknown.length === 0) return [];
    return [{ field, message: `unknown placeholder ${braced(unknown)}; use only ${braced(allowed)}` }];
  });
}

function templateTexts(design: Design): TemplateText[] {
  const nodeTexts = design.nodes.flatMap((node, index): TemplateText[] =>
    NODE_KIND_RULES[node.kind]
      .templates(node.config)
      .map(({ key, text, allowed }) => ({ field: `nodes[${index}].config.${key}`, text, allowed })),
  );
  const ensembleTexts = design.ensembles.flatMap((ensemble, index): TemplateText[] => [
    { field: `ensembles[${index}].prompt_template`, text: ensemble.prompt_template, allowed: AGENT_PLACEHOLDERS },
    ...ensemble.members.map((member, memberIndex) => ({
      field: `ensembles[${index}].members[${memberIndex}].prompt_override`,
      text: member.prompt_override,
      allowed: AGENT_PLACEHOLDERS,
    })),
  ]);
  return [...nodeTexts, ...ensembleTexts];
}

function braced(names: readonly string[]): string {
  return names.map((name) => `{{${name}}}`).join(', ');
}
