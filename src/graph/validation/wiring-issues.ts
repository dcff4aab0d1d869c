// Issues with an ensemble's entries: one list of them, and at most one entry from each node or ensemble.
import type { Design } from '../../domain/design';
import type { Issue } from '../../domain/errors';
import { entrySource } from '../ensemble-wiring';

export function wiringIssues(design: Design): Issue[] {
  return design.ensembles.flatMap((ensemble, index) => {
    const at = `ensembles[${index}]`;
    const entries = ensemble.entry_from ?? [];
    const issues: Issue[] = [];
    if (ensemble.entry_from_node !== undefined && ensemble.entry_from !== undefined) {
      issues.push({
        field: `${at}.entry_from_node`,
        message: `is the older form of one entry and cannot be given with entry_from; add it to entry_from as {"node": "${ensemble.entry_from_node}"} instead`,
      });
    }
    entries.forEach((entry, entryIndex) => {
      const source = entrySource(entry);
      const first = entries.findIndex((other) => entrySource(other) === source);
      if (first === entryIndex) return;
      issues.push({
        field: `${at}.entry_from[${entryIndex}]`,
        message:
          `repeats entry_from[${first}]: '${ensemble.name}' already has an entry from '${source}'; ` +
          'keep one (its condition says which outcomes enter, always for every one)',
      });
    });
    return issues;
  });
}
