// A loop's picture as plain text lines: the static snapshot `loop info` prints.
import type { LoopPicture } from '../../client/loop-picture-service';

export function pictureLines(picture: LoopPicture): string[] {
  const lines: string[] = [];
  for (const vertex of picture.vertices) {
    const ensemble = vertex.ensemble;
    const name = ensemble
      ? `${vertex.name} [${ensemble.members.length} models] quorum ${ensemble.min_pass} of ${ensemble.members.length}`
      : vertex.name;
    const edges = vertex.edges.map((edge) => `${edge.loopback ? '↺' : '→'} ${edge.condition} ${edge.target}`).join(', ');
    lines.push(`  ${vertex.state.padEnd(8)} ${name}  round ${vertex.round}${edges ? `  (${edges})` : ''}`);
    for (const member of ensemble?.members ?? []) lines.push(`      ${member.state.padEnd(8)} ${member.label}  ${member.node}`);
  }
  return lines;
}
