// A loop's graph as Ink boxes, shared by `loop watch` and `canopy tui`: each vertex in reading
// order with its state, elapsed time and round, ensembles collapsed to one box with a line per
// member (their node names when expanded), the edges under each box, and the latest output.
import { Box, Text } from 'ink';
import { createElement as h, type ReactElement } from 'react';
import type { LoopPicture, VertexPicture } from '../../client/loop-picture-service.js';
import { terminalSafe } from '../output.js';
import { vertexTitle } from './lines.js';

export const STATE_COLOR: Record<string, string> = {
  running: 'yellow',
  waiting: 'magenta',
  pass: 'green',
  fail: 'red',
  stale: 'gray',
  pending: 'gray',
};

function elapsed(since: string | null, now: number): string {
  if (!since) return '';
  const seconds = Math.max(0, Math.floor((now - Date.parse(since)) / 1000));
  return ` ${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** An edge leaving a vertex, as a view names it to mark it selected. */
export interface EdgeRef {
  source: string;
  target: string;
  condition: string;
}

function VertexBox(props: {
  vertex: VertexPicture;
  selected: boolean;
  selectedEdge: EdgeRef | null;
  expanded: boolean;
  now: number;
}): ReactElement {
  const { vertex, selected, selectedEdge, expanded, now } = props;
  const isSelected = (edge: VertexPicture['edges'][number]) =>
    selectedEdge?.source === vertex.name && selectedEdge.target === edge.target && selectedEdge.condition === edge.condition;
  const ensemble = vertex.ensemble;
  const title = vertexTitle(vertex);
  const memberLines = (ensemble?.members ?? []).map((member) =>
    h(
      Text,
      { key: member.node },
      '  ',
      h(Text, { color: STATE_COLOR[member.state] }, member.state.padEnd(8)),
      ` ${member.label}${expanded ? `  (${member.node})` : ''}`,
    ),
  );
  return h(
    Box,
    { flexDirection: 'column', marginLeft: 1, alignItems: 'flex-start' },
    h(
      Box,
      { borderStyle: selected ? 'bold' : 'round', borderColor: STATE_COLOR[vertex.state], flexDirection: 'column', paddingX: 1 },
      h(
        Text,
        null,
        h(Text, { bold: true }, title),
        '  ',
        h(Text, { color: STATE_COLOR[vertex.state] }, vertex.state),
        elapsed(vertex.running_since, now),
        `  round ${vertex.round}`,
      ),
      ...memberLines,
    ),
    ...vertex.edges.map((edge) =>
      h(
        Text,
        { key: `${edge.target}:${edge.condition}`, dimColor: !isSelected(edge), inverse: isSelected(edge) },
        `   ${edge.loopback ? '↺' : '↓'} ${edge.condition} → ${edge.target}`,
      ),
    ),
  );
}

/** The vertices of `picture` with `current` drawn bold and `selectedEdge` inverse, then the tail of the newest output. */
export function LoopGraph(props: {
  picture: LoopPicture;
  current: string | null;
  selectedEdge?: EdgeRef | null;
  expanded: boolean;
  now: number;
}): ReactElement {
  const { picture, current, selectedEdge = null, expanded, now } = props;
  return h(
    Box,
    { flexDirection: 'column' },
    picture.live_unavailable ? h(Text, { color: 'red' }, picture.live_unavailable) : null,
    picture.blocked ? h(Text, { color: 'magenta' }, `blocked: ${terminalSafe(picture.blocked)}`) : null,
    ...picture.vertices.map((vertex) =>
      h(VertexBox, { key: vertex.name, vertex, selected: vertex.name === current, selectedEdge, expanded, now }),
    ),
    picture.output_tail
      ? h(
          Box,
          { flexDirection: 'column', marginTop: 1 },
          h(Text, { dimColor: true }, `${picture.output_tail.running ? 'live' : 'latest'} output (${picture.output_tail.node}):`),
          ...picture.output_tail.lines.map((line, i) => h(Text, { key: i }, `  ${terminalSafe(line)}`)),
        )
      : null,
  );
}
