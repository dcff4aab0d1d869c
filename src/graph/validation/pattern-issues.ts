// Issues with gate patterns: each must compile on the linear-time engine gates are judged with.
import type { Design } from '../../domain/design';
import type { Issue } from '../../domain/errors';
import { compilePattern } from '../patterns';

export function patternIssues(design: Design): Issue[] {
  return design.nodes.flatMap((node, index) => {
    const source = node.kind === 'gate' ? node.config.output_matches : undefined;
    if (typeof source !== 'string' || source === '') return [];
    const compiled = compilePattern(source);
    if (compiled.ok) return [];
    return [
      {
        field: `nodes[${index}].config.output_matches`,
        message: `is not a pattern canopy can judge in linear time (${compiled.error}); use RE2 syntax: no backreferences or lookarounds`,
      },
    ];
  });
}
