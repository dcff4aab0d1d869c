// The state of `canopy tui` that keys change, apart from what it reads from the store, and the pure
// reducer that moves it. The mode says what keys mean now (key-map.mts has a table per mode): the
// sidebar and the main pane, a prompt, a question, an opened text or approval, the comment of a
// rejection, the built-in editor, a refused config.
import type { Key } from 'ink';
import type { InboxItem } from '../../client/approvals-service.js';
import type { Issue } from '../../domain/errors.js';
import type { Command } from './commands.mjs';
import { projectOfRow, type SidebarRow } from './sidebar.js';
import type { EditTarget } from './store-actions.js';
import { areaKey, type TextArea } from './text-area.mjs';

export type Prompt = 'filter' | 'autorun' | 'node' | 'edge';

export type Mode =
  | { kind: 'normal' }
  | { kind: 'help' }
  | { kind: 'prompt'; purpose: Prompt; text: string }
  /** A question whose `y` runs the command. */
  | { kind: 'confirm'; question: string; command: Command }
  | { kind: 'output'; title: string; text: string }
  | { kind: 'editing'; target: EditTarget; area: TextArea }
  | { kind: 'refused'; target: EditTarget; text: string; issues: Issue[] }
  /** An approval of the inbox opened: its message, and the keys that decide it. */
  | { kind: 'approval'; item: InboxItem }
  /** The comment of a rejection being typed, the approval still shown. */
  | { kind: 'comment'; item: InboxItem; text: string };

export interface TuiState {
  mode: Mode;
  focus: 'sidebar' | 'main';
  /** The key of the sidebar's selected row; the first selectable row is selected when null or gone. */
  cursor: string | null;
  /** The workdir whose backlog the sidebar shows; the first project's when null. */
  project: string | null;
  showArchived: boolean;
  filter: string;
  /** Over the loop's vertices, then its edges, then its runs. */
  mainCursor: number;
  expanded: boolean;
  /** How many pages of the loop's runs the main pane lists, newest first. */
  runPages: number;
  /** The status line: what the last action did, or why it was refused. */
  message: string;
}

const NORMAL: Mode = { kind: 'normal' };

export const INITIAL_STATE: TuiState = {
  mode: NORMAL,
  focus: 'sidebar',
  cursor: null,
  project: null,
  showArchived: false,
  filter: '',
  mainCursor: 0,
  expanded: false,
  runPages: 1,
  message: '',
};

export type TuiEvent =
  | { type: 'open'; mode: Exclude<Mode, { kind: 'normal' }> }
  /** Back to the normal mode, saying `message` when given. */
  | { type: 'back'; message?: string }
  | { type: 'say'; message: string }
  /** A key typed into the prompt, the comment or the built-in editor. */
  | { type: 'type'; input: string; key: Key }
  /** Back from the filter's prompt with the filter dropped. */
  | { type: 'clear filter' }
  /** `mainPane`: whether the main pane can take the focus (it shows a loop). */
  | { type: 'toggle focus'; mainPane: boolean }
  | { type: 'focus main' }
  | { type: 'toggle archived' }
  | { type: 'toggle expanded' }
  /** The main pane lists a page more of the loop's older runs. */
  | { type: 'older runs' }
  | { type: 'select'; row: SidebarRow }
  /** `items`: how many the main pane's cursor moves over. */
  | { type: 'move main'; step: number; items: number }
  /** Another loop is followed: the main pane's cursor starts at its first vertex. */
  | { type: 'loop followed' };

export function reduce(state: TuiState, event: TuiEvent): TuiState {
  switch (event.type) {
    case 'open':
      return { ...state, mode: event.mode };
    case 'back':
      return { ...state, mode: NORMAL, message: event.message ?? state.message };
    case 'say':
      return { ...state, message: event.message };
    case 'type':
      return typed(state, event.input, event.key);
    case 'clear filter':
      return { ...state, mode: NORMAL, filter: '' };
    case 'toggle focus':
      return { ...state, focus: state.focus === 'sidebar' && event.mainPane ? 'main' : 'sidebar' };
    case 'focus main':
      return { ...state, focus: 'main' };
    case 'toggle archived':
      return { ...state, showArchived: !state.showArchived };
    case 'toggle expanded':
      return { ...state, expanded: !state.expanded };
    case 'older runs':
      return { ...state, runPages: state.runPages + 1 };
    case 'select':
      return { ...state, cursor: event.row.key, project: projectOfRow(event.row) ?? state.project };
    case 'move main':
      return { ...state, mainCursor: Math.min(Math.max(0, event.items - 1), Math.max(0, state.mainCursor + event.step)) };
    case 'loop followed':
      return { ...state, mainCursor: 0, runPages: 1 };
  }
}

/** A typed line edits the prompt's or the comment's text (the filter's applies as it is typed); the built-in editor takes every key. */
function typed(state: TuiState, input: string, key: Key): TuiState {
  const { mode } = state;
  if (mode.kind === 'editing') return { ...state, mode: { ...mode, area: areaKey(mode.area, input, key) } };
  if (mode.kind !== 'prompt' && mode.kind !== 'comment') return state;
  const text = key.backspace || key.delete ? mode.text.slice(0, -1) : mode.text + (key.ctrl || key.meta ? '' : input);
  const filter = mode.kind === 'prompt' && mode.purpose === 'filter' ? text : state.filter;
  return { ...state, mode: { ...mode, text }, filter };
}
