// Whole-design validation: every rule a loop's graph must meet before it is stored or run.
import type { Design } from '../domain/design';
import type { Issue } from '../domain/errors';
import { designWires, type DesignWire } from './design-wires';
import { conditionIssues } from './validation/condition-issues';
import { ensembleIssues, nodeIssues } from './validation/config-issues';
import { cycleIssues } from './validation/cycle-issues';
import { endpointIssues } from './validation/endpoint-issues';
import { duplicateNameIssues } from './validation/name-issues';
import { placeholderIssues } from './validation/placeholder-issues';
import { wiringIssues } from './validation/wiring-issues';

type Rule = (design: Design, wires: DesignWire[]) => Issue[];

const RULES: Rule[] = [
  nodeIssues,
  ensembleIssues,
  duplicateNameIssues,
  endpointIssues,
  wiringIssues,
  cycleIssues,
  conditionIssues,
  placeholderIssues,
];

/** Every problem with the design, each naming its field and the fix; [] when the design is valid. */
export function validateDesign(design: Design): Issue[] {
  const wires = designWires(design);
  return RULES.flatMap((rule) => rule(design, wires));
}
