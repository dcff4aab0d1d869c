// Issues with names shared by more than one node or ensemble of a design.
import type { Design } from '../../domain/design';
import type { Issue } from '../../domain/errors';
import { addTo } from '../search';

export function duplicateNameIssues(design: Design): Issue[] {
  const fieldsByName = new Map<string, string[]>();
  design.nodes.forEach((node, index) => addTo(fieldsByName, node.name, `nodes[${index}].name`));
  design.ensembles.forEach((ensemble, index) => addTo(fieldsByName, ensemble.name, `ensembles[${index}].name`));
  return [...fieldsByName]
    .filter(([, fields]) => fields.length > 1)
    .map(([name, fields]) => ({
      field: fields[1],
      message: `'${name}' names ${fields.join(' and ')}; ` + 'node and ensemble names must be unique within a loop, so rename all but one',
    }));
}
