// A loop's graph as SVG, laid out by dagre: flow edges top to bottom, loop-back edges left out of the
// layout and drawn apart as dashed arcs on the right, an ensemble as one box listing its members, each
// vertex and member coloured by its state. A vertex links to its latest node run, an approval waiting for a
// person to the inbox. It pans and zooms (pan-zoom.ts), which a phone's narrow graph needs.
import dagre from '@dagrejs/dagre';
import { h, type JSX } from 'preact';
import { usePanZoom, ZOOM_STEP, type PanZoom } from './pan-zoom';
import type { Vertex } from './types';

const WIDTH = 180;
const ROW = 18;
const HEAD = 34;
const LOOPBACK_REACH = 60;

interface Box {
  vertex: Vertex;
  x: number;
  y: number;
  width: number;
  height: number;
}

const heightOf = (vertex: Vertex) => HEAD + (vertex.ensemble ? vertex.ensemble.members.length * ROW + 6 : 0);

export function layOut(vertices: Vertex[]): {
  boxes: Map<string, Box>;
  flows: { from: string; to: string; points: { x: number; y: number }[]; condition: string }[];
  width: number;
  height: number;
} {
  const graph = new dagre.graphlib.Graph({ multigraph: true });
  graph.setGraph({ rankdir: 'TB', nodesep: 30, ranksep: 44, marginx: 12, marginy: 12 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const vertex of vertices) graph.setNode(vertex.name, { width: WIDTH, height: heightOf(vertex) });
  vertices.forEach((vertex) =>
    vertex.edges
      .filter((edge) => !edge.loopback && graph.hasNode(edge.target))
      .forEach((edge, index) => graph.setEdge(vertex.name, edge.target, { condition: edge.condition }, `${vertex.name}-${index}`)),
  );
  dagre.layout(graph);
  const boxes = new Map(
    vertices.map((vertex) => {
      const node = graph.node(vertex.name) as { x: number; y: number; width: number; height: number };
      return [vertex.name, { vertex, x: node.x - node.width / 2, y: node.y - node.height / 2, width: node.width, height: node.height }];
    }),
  );
  const flows = graph.edges().map((key) => {
    const edge = graph.edge(key) as { points: { x: number; y: number }[]; condition: string };
    return { from: key.v, to: key.w, points: edge.points, condition: edge.condition };
  });
  const layout = graph.graph() as { width?: number; height?: number };
  return { boxes, flows, width: (layout.width ?? 0) + LOOPBACK_REACH, height: layout.height ?? 0 };
}

export function GraphView(props: { vertices: Vertex[] }): JSX.Element {
  const { boxes, flows, width, height } = layOut(props.vertices);
  const panZoom = usePanZoom({ width, height });
  const { view } = panZoom;
  const loopbacks = props.vertices.flatMap((vertex) =>
    vertex.edges
      .filter((edge) => edge.loopback && boxes.has(edge.target))
      .map((edge) => ({ from: vertex.name, to: edge.target, condition: edge.condition })),
  );
  return h(
    'div',
    { class: 'graph-frame' },
    h(ZoomButtons, { panZoom }),
    h(
      'svg',
      {
        class: 'graph',
        ref: panZoom.svgRef,
        viewBox: `${view.x} ${view.y} ${view.width} ${view.height}`,
        width: '100%',
        style: { maxWidth: `${width * 1.4}px` },
        role: 'img',
        ...panZoom.handlers,
      },
      h(
        'defs',
        null,
        h(
          'marker',
          { id: 'arrow', viewBox: '0 0 8 8', refX: 7, refY: 4, markerWidth: 7, markerHeight: 7, orient: 'auto' },
          h('path', { d: 'M0,0 L8,4 L0,8 z' }),
        ),
      ),
      flows.map((flow) =>
        h('path', {
          key: `${flow.from}>${flow.to}>${flow.condition}`,
          class: `edge flow condition-${flow.condition}`,
          d: `M${flow.points.map((p) => `${p.x},${p.y}`).join(' L')}`,
          'marker-end': 'url(#arrow)',
        }),
      ),
      loopbacks.map((edge) => {
        const from = boxes.get(edge.from)!;
        const to = boxes.get(edge.to)!;
        const fromX = from.x + from.width;
        const toX = to.x + to.width;
        const reach = Math.max(fromX, toX) + LOOPBACK_REACH - 12;
        return h('path', {
          key: `${edge.from}<${edge.to}`,
          class: 'edge loopback',
          'data-loopback': `${edge.from}->${edge.to}`,
          d: `M${fromX},${from.y + from.height / 2} C${reach},${from.y + from.height / 2} ${reach},${to.y + to.height / 2} ${toX},${to.y + to.height / 2}`,
          'marker-end': 'url(#arrow)',
        });
      }),
      [...boxes.values()].map(vertexBox),
    ),
  );
}

function ZoomButtons(props: { panZoom: PanZoom }): JSX.Element {
  const { panZoom } = props;
  return h(
    'div',
    { class: 'zoom', 'data-zoom': panZoom.zoom.toFixed(2) },
    h('button', { 'data-zoom-by': 'in', title: 'Zoom in', onClick: () => panZoom.zoomBy(ZOOM_STEP) }, '+'),
    h('button', { 'data-zoom-by': 'out', title: 'Zoom out', onClick: () => panZoom.zoomBy(1 / ZOOM_STEP) }, '\u2212'),
    h('button', { 'data-zoom-by': 'fit', title: 'Show the whole graph', onClick: panZoom.fit }, 'fit'),
  );
}

function vertexBox({ vertex, x, y, width, height }: Box): JSX.Element {
  const box = h(
    'g',
    { class: `vertex state-${vertex.state}`, 'data-vertex': vertex.name, 'data-state': vertex.state, transform: `translate(${x},${y})` },
    h('rect', { width, height, rx: 6 }),
    h('text', { x: 10, y: 21, class: 'label' }, vertex.name),
    h('text', { x: width - 10, y: 21, class: 'meta', 'text-anchor': 'end' }, vertex.ensemble ? vertex.ensemble.kind : vertex.kind),
    vertex.ensemble?.members.map((member, index) =>
      h(
        'g',
        {
          key: member.node,
          class: `member state-${member.state}`,
          'data-member': member.node,
          'data-state': member.state,
          transform: `translate(8,${HEAD + index * ROW})`,
        },
        h('circle', { cx: 5, cy: 7, r: 4 }),
        h('text', { x: 14, y: 11 }, member.label),
      ),
    ),
  );
  const opens = vertex.state === 'waiting' ? '#/inbox' : vertex.last_run_id && `#/runs/${vertex.last_run_id}`;
  return opens ? h('a', { key: vertex.name, href: opens }, box) : h('g', { key: vertex.name }, box);
}
