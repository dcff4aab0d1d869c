// What the screen of `canopy tui` has selected, derived from the state and what was read: the
// sidebar's rows and the row under its cursor (a loop, an approval…), and in a loop's main pane the
// vertex, edge or run under the main cursor. Keys act on this.
import type { InboxItem } from '../../client/approvals-service.js';
import type { EdgeView } from '../../client/graph-view-service.js';
import type { LoopPicture, VertexPicture } from '../../client/loop-picture-service.js';
import type { Loop } from '../../domain/loop.js';
import type { TuiState } from './modes.mjs';
import { sidebarRows, type SidebarRow } from './sidebar.js';
import type { LoopDetails, SidebarLists } from './store-actions.js';

export interface SidebarSelection {
  rows: SidebarRow[];
  /** The rows the cursor can be on: all but the headings. */
  selectable: SidebarRow[];
  selected: SidebarRow | undefined;
  loop: Loop | null;
  approval: InboxItem | null;
}

export interface MainSelection {
  /** How many vertices, edges and runs the main pane's cursor moves over. */
  mainItems: number;
  selectedVertex: VertexPicture | null;
  selectedEdge: EdgeView | null;
  selectedRun: string | null;
  /** The vertex the graph marks: the selected one, else the one running. */
  current: string | null;
  /** The vertex `o` and `i` act on: the current one, else the first. */
  vertex: VertexPicture | null;
}

export type Selection = SidebarSelection & MainSelection;

export function sidebarSelection(
  choices: Pick<TuiState, 'cursor' | 'project' | 'showArchived' | 'filter'>,
  lists: SidebarLists | null,
  cwd: string,
): SidebarSelection {
  const { cursor, project, showArchived, filter } = choices;
  const rows = lists ? sidebarRows(lists, { cwd, project, showArchived, filter }) : [];
  const selectable = rows.filter((row) => row.kind !== 'heading');
  const selected = selectable.find((row) => row.key === cursor) ?? selectable[0];
  return {
    rows,
    selectable,
    selected,
    loop: selected?.kind === 'loop' ? selected.loop : null,
    approval: selected?.kind === 'approval' ? selected.item : null,
  };
}

/** The main pane's cursor moves over the vertices, then the edges, then the runs. */
export function mainSelection(state: TuiState, picture: LoopPicture | null, details: LoopDetails | null): MainSelection {
  const vertices = picture?.vertices ?? [];
  const edges = drawnEdges(picture, details?.edges ?? []);
  const runs = details?.runs ?? [];
  const mainItems = vertices.length + edges.length + runs.length;
  const item = state.focus === 'main' ? Math.min(state.mainCursor, mainItems - 1) : -1;
  const selectedVertex = item >= 0 && item < vertices.length ? vertices[item] : null;
  const current = selectedVertex?.name ?? picture?.running ?? null;
  return {
    mainItems,
    selectedVertex,
    selectedEdge: item >= vertices.length ? (edges[item - vertices.length] ?? null) : null,
    selectedRun: item >= vertices.length + edges.length ? (runs[item - vertices.length - edges.length]?.run_id ?? null) : null,
    current,
    vertex: vertices.find((vertex) => vertex.name === (current ?? vertices[0]?.name)) ?? null,
  };
}

/** The stored edges in the order the graph draws them: under each vertex in turn. */
function drawnEdges(picture: LoopPicture | null, edges: readonly EdgeView[]): EdgeView[] {
  return (picture?.vertices ?? []).flatMap((vertex) =>
    vertex.edges.flatMap((drawn) =>
      edges.filter((edge) => edge.source === vertex.name && edge.target === drawn.target && edge.condition === drawn.condition),
    ),
  );
}
