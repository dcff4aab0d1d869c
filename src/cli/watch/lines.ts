// A loop's picture as plain text lines: the static snapshot `loop info` prints.
import type { LoopPicture, VertexPicture } from '../../client/loop-picture-service';

/** A vertex's name, an ensemble's with its members and how they are joined. */
export function vertexTitle(vertex: VertexPicture): string {
  const ensemble = vertex.ensemble;
  if (!ensemble) return vertex.name;
  const count = ensemble.members.length;
  const join = {
    parallel: `quorum ${ensemble.min_pass} of ${count}`,
    cascade: 'cascade: one at a time until one passes',
    round_robin: 'round_robin: one member per entry',
  }[ensemble.kind];
  return `${vertex.name} [${count} models] ${join}`;
}

export function pictureLines(picture: LoopPicture): string[] {
  const lines: string[] = [];
  for (const vertex of picture.vertices) {
    const ensemble = vertex.ensemble;
    const name = vertexTitle(vertex);
    const edges = vertex.edges.map((edge) => `${edge.loopback ? '↺' : '→'} ${edge.condition} ${edge.target}`).join(', ');
    lines.push(`  ${vertex.state.padEnd(8)} ${name}  round ${vertex.round}${edges ? `  (${edges})` : ''}`);
    for (const member of ensemble?.members ?? []) lines.push(`      ${member.state.padEnd(8)} ${member.label}  ${member.node}`);
  }
  return lines;
}
