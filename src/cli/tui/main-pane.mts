// The main pane of `canopy tui` for the mode and the selected row, and the status line under it:
// a prompt being typed, a question, or what the last action did.
import { Text } from 'ink';
import { createElement as h, type ReactElement } from 'react';
import type { LoopPicture } from '../../client/loop-picture-service.js';
import { terminalSafe } from '../output.js';
import { EDGE_SYNTAX, NODE_SYNTAX } from './graph-input.js';
import type { Prompt, TuiState } from './modes.mjs';
import { ApprovalPane, HelpPane, LoopPane, RefusalPane, TextPane } from './panes.mjs';
import type { Selection } from './selection.mjs';
import type { LoopDetails, SidebarLists } from './store-actions.js';
import { TextAreaView } from './text-area.mjs';

const PROMPT_LABEL: Record<Prompt, string> = {
  filter: '/',
  autorun: 'autorun at (ISO-8601, empty cancels): ',
  node: `add node: ${NODE_SYNTAX}\n> `,
  edge: `add edge: ${EDGE_SYNTAX}\n> `,
};

export function MainPane(props: {
  state: TuiState;
  view: Selection;
  lists: SidebarLists | null;
  autoruns: Record<string, string>;
  picture: LoopPicture | null;
  details: LoopDetails | null;
  now: number;
  height: number;
}): ReactElement {
  const { state, view, lists, autoruns, picture, details, now, height } = props;
  const { mode } = state;
  if (mode.kind === 'help') return h(HelpPane);
  if (mode.kind === 'output') return h(TextPane, { title: `${mode.title} (any key to go back)`, lines: [], text: mode.text });
  if (mode.kind === 'refused') return h(RefusalPane, { label: mode.target.label, issues: mode.issues });
  if (mode.kind === 'editing') return h(TextAreaView, { title: `editing ${mode.target.label}`, area: mode.area, height: height - 4 });
  if (mode.kind === 'approval' || mode.kind === 'comment') return h(ApprovalPane, { item: mode.item, opened: true });
  if (!lists) return h(Text, null, 'Reading the store…');
  const { selected } = view;
  switch (selected?.kind) {
    case 'approval':
      return h(ApprovalPane, { item: selected.item, opened: false });
    case 'loop':
      return h(LoopPane, {
        loop: selected.loop,
        autorunAt: autoruns[selected.loop.id] ?? null,
        picture,
        details,
        current: view.current,
        selectedEdge: view.selectedEdge,
        selectedRun: view.selectedRun,
        expanded: state.expanded,
        now,
      });
    case 'spec':
      return h(TextPane, {
        title: `spec ${selected.spec.name} (${selected.spec.id})`,
        lines: [`${selected.spec.status} · backlog · ${selected.spec.workdir ?? 'any workdir'}`],
        text: selected.spec.content,
      });
    case 'blueprint':
      return h(TextPane, {
        title: `blueprint ${selected.blueprint.name}`,
        lines: [`${selected.blueprint.kind} · ${selected.blueprint.builtin ? 'builtin' : 'custom'}`],
        text: JSON.stringify(selected.blueprint.config, null, 2),
      });
    case 'project': {
      const loops = lists.loops.filter((l) => l.workdir === selected.workdir && (state.showArchived || !l.archived));
      const counts = [...new Set(loops.map((l) => l.status))].map(
        (status) => `${loops.filter((l) => l.status === status).length} ${status}`,
      );
      return h(TextPane, { title: `project ${selected.workdir}`, lines: [], text: `${loops.length} loop(s): ${counts.join(', ')}` });
    }
    default:
      return h(Text, null, 'No loops, specs or blueprints match.');
  }
}

export function StatusLine(props: { state: TuiState }): ReactElement {
  const { mode, message, filter } = props.state;
  const cursor = h(Text, { inverse: true }, ' ');
  if (mode.kind === 'prompt') return h(Text, null, PROMPT_LABEL[mode.purpose], mode.text, cursor);
  if (mode.kind === 'comment') {
    const what = terminalSafe(`${mode.item.node} of ${mode.item.loop_name}`, { multiline: false });
    return h(Text, null, `reject ${what}, saying why (the next node is told; Enter rejects, Esc cancels): `, mode.text, cursor);
  }
  if (mode.kind === 'confirm') return h(Text, { color: 'yellow' }, mode.question);
  // Wrapped, not cut: a refusal names every problem (an unknown blueprint, the available ones).
  return h(Text, { color: 'magenta' }, message || (filter ? `filter: ${filter}` : ''));
}
