// What each key does in each mode of `canopy tui`: a table per mode from a key's name to its
// reaction, given the state and what the screen has selected. A reaction is an event for the mode
// reducer (modes.mts), a command for the app to run (commands.mts), or both. A key its mode's table
// does not name does what the mode's `otherwise` says, else nothing.
import type { Key } from 'ink';
import type { InboxItem } from '../../client/approvals-service.js';
import type { Loop } from '../../domain/loop.js';
import { terminalSafe } from '../output.js';
import type { Command } from './commands.mjs';
import type { Mode, Prompt, TuiEvent, TuiState } from './modes.mjs';
import type { Selection } from './selection.mjs';
import type { Decision, LoopAction } from './store-actions.js';
import { areaText } from './text-area.mjs';

export interface Pressed {
  /** As the tables spell it: Enter, Esc, Tab, Up, Down, C-s, or the character typed. */
  name: string;
  /** How many times: keys typed faster than a frame arrive together, and 'jjj' moves three rows. */
  count: number;
  input: string;
  key: Key;
}

export function pressed(input: string, key: Key): Pressed {
  const burst = /^([jk])\1*$/.exec(input);
  return { name: burst ? burst[1] : nameOf(input, key), count: burst ? input.length : 1, input, key };
}

function nameOf(input: string, key: Key): string {
  if (key.return) return 'Enter';
  if (key.escape) return 'Esc';
  if (key.tab) return 'Tab';
  if (key.upArrow) return 'Up';
  if (key.downArrow) return 'Down';
  if (key.ctrl) return `C-${input}`;
  return input;
}

export interface Reaction {
  event?: TuiEvent;
  command?: Command;
}

type ModeOf<K extends Mode['kind']> = Extract<Mode, { kind: K }>;

export interface At<M extends Mode = Mode> {
  state: TuiState & { mode: M };
  view: Selection;
  pressed: Pressed;
}

type Binding<M extends Mode> = (at: At<M>) => Reaction;

interface KeyMap<M extends Mode> {
  keys: Record<string, Binding<M>>;
  otherwise?: Binding<M>;
}

export const CONFIRM_KEYS = 'y confirms, any other key cancels';

const ABANDONED = 'edit abandoned; nothing was changed';

const CONFIRMED: Record<'stop' | 'reset' | 'archive' | 'restore', string> = {
  stop: 'Stop',
  reset: 'Reset the specs of',
  archive: 'Archive',
  restore: 'Restore',
};

const NOTHING: Reaction = {};
const open = (mode: Exclude<Mode, { kind: 'normal' }>): Reaction => ({ event: { type: 'open', mode } });
const back = (message?: string): Reaction => ({ event: { type: 'back', message } });
const say = (message: string): Reaction => ({ event: { type: 'say', message } });
const typing: Binding<Mode> = ({ pressed }) => ({ event: { type: 'type', input: pressed.input, key: pressed.key } });

/** A key that acts on the selected loop, and does nothing while none is. */
const withLoop =
  (act: (loop: Loop, at: At<ModeOf<'normal'>>) => Reaction): Binding<ModeOf<'normal'>> =>
  (at) =>
    at.view.loop ? act(at.view.loop, at) : NOTHING;

const loopAction = (action: LoopAction) => withLoop((loop) => ({ command: { do: 'act', loopId: loop.id, action } }));

const confirmed = (action: (loop: Loop) => keyof typeof CONFIRMED) =>
  withLoop((loop) =>
    open({
      kind: 'confirm',
      question: `${CONFIRMED[action(loop)]} loop ${terminalSafe(loop.name)}? ${CONFIRM_KEYS}`,
      command: { do: 'act', loopId: loop.id, action: action(loop) },
    }),
  );

const promptFor = (purpose: Prompt) => withLoop(() => open({ kind: 'prompt', purpose, text: '' }));

/** Up or down: over the main pane's items when it has the focus, else over the sidebar's rows. */
const move =
  (direction: 1 | -1): Binding<ModeOf<'normal'>> =>
  ({ state, view, pressed }) => {
    const step = direction * pressed.count;
    if (state.focus === 'main') return { event: { type: 'move main', step, items: view.mainItems } };
    const at = view.selectable.findIndex((row) => row.key === view.selected?.key);
    const next = view.selectable[Math.min(view.selectable.length - 1, Math.max(0, at + step))];
    return next ? { event: { type: 'select', row: next } } : NOTHING;
  };

const removal = withLoop((loop, { view }) => {
  if (view.selectedEdge) {
    const { id, source, target, condition } = view.selectedEdge;
    return open({
      kind: 'confirm',
      question: terminalSafe(`Remove the edge ${source} → ${target} on ${condition}? ${CONFIRM_KEYS}`),
      command: { do: 'remove edge', edgeId: id },
    });
  }
  const vertex = view.selectedVertex;
  if (!vertex) return say('select a node or an edge in the main pane (Tab, then ↑ ↓) to remove it');
  return open({
    kind: 'confirm',
    question: terminalSafe(`Remove the ${vertex.kind} ${vertex.name} and its edges? ${CONFIRM_KEYS}`),
    command: { do: 'remove vertex', loopId: loop.id, vertex: vertex.name },
  });
});

const NORMAL: KeyMap<ModeOf<'normal'>> = {
  keys: {
    q: () => ({ command: { do: 'quit' } }),
    '?': () => open({ kind: 'help' }),
    Tab: ({ view }) => ({ event: { type: 'toggle focus', mainPane: view.loop !== null } }),
    '/': ({ state }) => open({ kind: 'prompt', purpose: 'filter', text: state.filter }),
    h: () => ({ event: { type: 'toggle archived' } }),
    Up: move(-1),
    k: move(-1),
    Down: move(1),
    j: move(1),
    Enter: ({ state, view }) => {
      if (state.focus === 'sidebar' && view.loop) return { event: { type: 'focus main' } };
      if (state.focus === 'sidebar' && view.approval) return open({ kind: 'approval', item: view.approval });
      if (view.selectedRun) return { command: { do: 'output', title: `output of run ${view.selectedRun}`, runId: view.selectedRun } };
      return NOTHING;
    },
    r: loopAction('run'),
    p: loopAction('pause'),
    c: loopAction('retry'),
    s: loopAction('skip'),
    t: confirmed(() => 'stop'),
    R: confirmed(() => 'reset'),
    A: confirmed((loop) => (loop.archived ? 'restore' : 'archive')),
    '@': promptFor('autorun'),
    a: promptFor('node'),
    w: promptFor('edge'),
    x: removal,
    e: withLoop(() => ({ event: { type: 'toggle expanded' } })),
    m: withLoop(() => ({ event: { type: 'older runs' } })),
    o: withLoop((_loop, { view: { vertex } }) =>
      vertex?.last_run_id
        ? { command: { do: 'output', title: `last run output of ${vertex.name}`, runId: vertex.last_run_id } }
        : say(`no run of ${vertex?.name ?? 'this node'} yet`),
    ),
    i: withLoop((loop, { view: { vertex } }) =>
      vertex ? { command: { do: 'edit config', loopId: loop.id, vertex: vertex.name } } : NOTHING,
    ),
  },
};

/** Enter in a prompt: the filter is kept as typed; the others act on the selected loop (an empty node or edge line cancels). */
const submitPrompt: Binding<ModeOf<'prompt'>> = ({ state: { mode }, view: { loop } }) => {
  const line = mode.text.trim();
  if (!loop || mode.purpose === 'filter') return back();
  if (mode.purpose === 'autorun') return { ...back(), command: { do: 'autorun', loopId: loop.id, at: line } };
  if (!line) return back('cancelled');
  return { ...back(), command: { do: mode.purpose === 'node' ? 'add node' : 'add edge', loopId: loop.id, line } };
};

const ANY_KEY_GOES_BACK = { keys: {}, otherwise: () => back() };

export const KEY_MAPS: { [K in Mode['kind']]: KeyMap<ModeOf<K>> } = {
  normal: NORMAL,
  help: ANY_KEY_GOES_BACK,
  output: ANY_KEY_GOES_BACK,
  confirm: {
    keys: { y: ({ state }) => ({ ...back(), command: state.mode.command }) },
    otherwise: () => back('cancelled'),
  },
  prompt: {
    keys: {
      Esc: ({ state }) => (state.mode.purpose === 'filter' ? { event: { type: 'clear filter' } } : back()),
      Enter: submitPrompt,
    },
    otherwise: typing,
  },
  editing: {
    keys: {
      Esc: () => back(ABANDONED),
      'C-s': ({ state: { mode } }) => ({ command: { do: 'store', target: mode.target, text: areaText(mode.area) } }),
    },
    otherwise: typing,
  },
  refused: {
    keys: {
      i: ({ state: { mode } }) => ({ command: { do: 'edit', target: mode.target, text: mode.text } }),
      Esc: () => back(ABANDONED),
      n: () => back(ABANDONED),
    },
  },
  approval: {
    keys: {
      y: ({ state: { mode } }) => ({ ...back(), command: { do: 'decide', decision: decision(mode.item, 'approve') } }),
      n: ({ state: { mode } }) => open({ kind: 'comment', item: mode.item, text: '' }),
    },
    otherwise: () => back(),
  },
  comment: {
    keys: {
      Esc: () => back('cancelled'),
      // An empty comment goes to the service too, which refuses it saying why.
      Enter: ({ state: { mode } }) => ({
        ...back(),
        command: { do: 'decide', decision: { ...decision(mode.item, 'reject'), comment: mode.text } },
      }),
    },
    otherwise: typing,
  },
};

function decision(item: InboxItem, kind: Decision['decision']): Decision {
  return { loop_id: item.loop_id, node: item.node, decision: kind };
}

/** What the key does in the state's mode. */
export function reactionTo(state: TuiState, view: Selection, key: Pressed): Reaction {
  const map = KEY_MAPS[state.mode.kind] as KeyMap<Mode>;
  // Own keys only: a pasted 'toString' is text, not a key of the table's prototype.
  const binding = Object.hasOwn(map.keys, key.name) ? map.keys[key.name] : map.otherwise;
  return binding ? binding({ state, view, pressed: key }) : NOTHING;
}
