// What changed between two pictures of a loop, as lines for a log: the view for a terminal that is
// not a TTY, and the progress `loop run --wait` prints.
import type { LoopPicture, VertexPicture } from '../../client/loop-picture-service';
import { terminalSafe } from '../output';

export function pictureChanges(before: LoopPicture | null, after: LoopPicture): string[] {
  const lines: string[] = [];
  if (after.spec && after.spec.id !== before?.spec?.id) lines.push(`spec ${after.spec.name} started`);
  for (const vertex of after.vertices) {
    const earlier = before?.vertices.find((v) => v.name === vertex.name);
    if (vertex.state !== 'pending' && (vertex.state !== earlier?.state || vertex.round !== earlier.round)) {
      lines.push(`${vertex.name} ${vertex.state}${roundNote(vertex)}`);
    }
    for (const member of vertex.ensemble?.members ?? []) {
      const was = earlier?.ensemble?.members.find((m) => m.node === member.node)?.state;
      if (member.state !== 'pending' && member.state !== was) lines.push(`${member.node} (${member.label}) ${member.state}`);
    }
  }
  if (after.status !== before?.status) lines.push(`loop ${after.name} ${after.status}`);
  if (after.live_unavailable && after.live_unavailable !== before?.live_unavailable) lines.push(after.live_unavailable);
  if (after.blocked && after.blocked !== before?.blocked) lines.push(`blocked: ${terminalSafe(after.blocked)}`);
  return lines;
}

function roundNote(vertex: VertexPicture): string {
  return vertex.round > 1 ? ` (round ${vertex.round})` : '';
}
