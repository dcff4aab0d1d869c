// The modes of `canopy tui` without a terminal: keys read through each mode's key map into the mode
// reducer's events and the commands the app runs, over a sidebar with a loop. Each press recomputes
// what is selected from the new state, as the app does on each frame.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Key } from 'ink' with { 'resolution-mode': 'import' };
import type { LoopPicture, VertexPicture } from '../../src/client/loop-picture-service';
import type { Loop } from '../../src/domain/loop';
import type { Command } from '../../src/cli/tui/commands.mjs' with { 'resolution-mode': 'import' };
import type { TuiState } from '../../src/cli/tui/modes.mjs' with { 'resolution-mode': 'import' };
import type { SidebarLists } from '../../src/cli/tui/store-actions';

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** A key as a terminal sends it: a character, or a named key. */
const KEYS: Record<string, [string, Partial<Key>]> = {
  Enter: ['', { return: true }],
  Esc: ['', { escape: true }],
  Tab: ['\t', { tab: true }],
  Down: ['', { downArrow: true }],
  Backspace: ['', { backspace: true }],
  'C-s': ['s', { ctrl: true }],
};

const loop: Loop = {
  id: 'loop_build',
  name: 'building',
  workdir: '/work/build',
  host: null,
  description: '',
  status: 'completed',
  settings: {},
  hooks: {},
  archived: false,
  created_at: '2030-01-01T09:00:00.000Z',
  updated_at: '2030-01-01T09:00:00.000Z',
};

const LISTS: SidebarLists = { loops: [loop], backlog: [], blueprints: [] };

const vertex = (name: string, lastRun: string | null): VertexPicture => ({
  name,
  kind: 'check',
  state: 'pass',
  round: 1,
  running_since: null,
  edges: [],
  ensemble: null,
  last_run_id: lastRun,
});

const PICTURE: LoopPicture = {
  loop_id: loop.id,
  name: loop.name,
  status: 'completed',
  spec: null,
  upcoming_specs: [],
  vertices: [vertex('implement', 'run_1'), vertex('tests', null), vertex('commit', 'run_3')],
  running: null,
  output_tail: null,
  live_unavailable: null,
};

async function tui() {
  const { INITIAL_STATE, reduce } = await import('../../src/cli/tui/modes.mjs');
  const { pressed, reactionTo } = await import('../../src/cli/tui/key-map.mjs');
  const { mainSelection, sidebarSelection } = await import('../../src/cli/tui/selection.mjs');
  let state: TuiState = INITIAL_STATE;
  const view = () => ({
    ...sidebarSelection(state, LISTS, '/work/build'),
    ...mainSelection(state, state.focus === 'main' ? PICTURE : null, null),
  });
  return {
    reduce,
    get state() {
      return state;
    },
    /** Presses each key in turn; returns the commands they asked for. */
    press(...keys: string[]): Command[] {
      const commands: Command[] = [];
      for (const name of keys) {
        const [input, key] = Object.hasOwn(KEYS, name) ? KEYS[name] : [name, {}];
        const { event, command } = reactionTo(state, view(), pressed(input, { ...NO_KEY, ...key }));
        if (event) state = reduce(state, event);
        if (command) commands.push(command);
      }
      return commands;
    },
    selected: () => view().selected?.key,
    /** The mode's kind, read afresh (an assertion on `state.mode` would narrow it for good). */
    mode: () => state.mode.kind,
  };
}

describe('canopy tui modes', () => {
  it('moves over the sidebar a row per j, several for a burst, and over the main pane once it has the focus', async () => {
    const app = await tui();
    assert.equal(app.selected(), 'p:/work/build');
    app.press('j');
    assert.equal(app.selected(), 'l:loop_build');
    assert.equal(app.state.project, '/work/build');
    app.press('k', 'jj');
    assert.equal(app.selected(), 'l:loop_build', 'a burst stops at the last row');
    app.press('Enter');
    assert.equal(app.state.focus, 'main', 'Enter on a loop moves to its main pane');
    app.press('jjj');
    assert.equal(app.state.mainCursor, 2, 'the cursor stops at the last of the three vertices');
    assert.deepEqual(app.press('o'), [{ do: 'output', title: 'last run output of commit', runId: 'run_3' }]);
    app.press('k', 'o');
    assert.equal(app.state.message, 'no run of tests yet');
    app.press('Tab');
    assert.equal(app.state.focus, 'sidebar');
    app.press('k', 'k', 'Tab');
    assert.equal(app.state.focus, 'sidebar', 'a project has no main pane to move to');
  });

  it('asks before stopping a loop: y runs the command the question holds, any other key cancels', async () => {
    const app = await tui();
    assert.deepEqual(app.press('r', 't'), [], 'the loop keys do nothing on a project');
    app.press('jj');
    assert.deepEqual(app.press('r'), [{ do: 'act', loopId: 'loop_build', action: 'run' }]);
    app.press('t');
    assert.equal(app.mode(), 'confirm');
    assert.match((app.state.mode as { question: string }).question, /^Stop loop building\? y confirms/);
    assert.deepEqual(app.press('y'), [{ do: 'act', loopId: 'loop_build', action: 'stop' }]);
    app.press('A', 'n');
    assert.deepEqual([app.mode(), app.state.message], ['normal', 'cancelled']);
  });

  it('filters as the filter is typed, keeps it on Enter and drops it on Esc; a pasted word is text, never a key', async () => {
    const app = await tui();
    app.press('/', 'b', 'u', 'i');
    assert.equal(app.state.filter, 'bui');
    assert.equal(app.selected(), 'p:/work/build');
    app.press('Enter');
    assert.deepEqual([app.mode(), app.state.filter], ['normal', 'bui']);
    app.press('/', 'Esc');
    assert.deepEqual([app.mode(), app.state.filter], ['normal', '']);
    assert.deepEqual(app.press('toString'), []);
    assert.deepEqual(app.press('jj', 'a', 'toString', 'Enter'), [{ do: 'add node', loopId: 'loop_build', line: 'toString' }]);
    assert.deepEqual(app.press('a', 'Enter'), []);
    assert.equal(app.state.message, 'cancelled', 'an empty node line adds nothing');
  });

  it('reduces a typed key in the built-in editor, leaves the state alone in the normal mode, and keeps the message going back', async () => {
    const app = await tui();
    const { textArea } = await import('../../src/cli/tui/text-area.mjs');
    const target = { label: 'node tests', text: '{}\n', save: () => Promise.resolve([]) };
    let state = app.reduce(app.state, { type: 'open', mode: { kind: 'editing', target, area: textArea('{}\n') } });
    state = app.reduce(state, { type: 'type', input: 'x', key: NO_KEY });
    assert.deepEqual(state.mode.kind === 'editing' && state.mode.area.lines, ['x{}']);
    const normal = app.reduce(app.state, { type: 'say', message: 'stored' });
    assert.equal(app.reduce(normal, { type: 'type', input: 'x', key: NO_KEY }), normal);
    assert.equal(app.reduce(state, { type: 'back' }).message, '', 'back without a message keeps the one shown');
    assert.equal(app.reduce({ ...state, message: 'kept' }, { type: 'back' }).message, 'kept');
  });
});
