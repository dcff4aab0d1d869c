// The modes of `canopy tui` without a terminal: keys read through each mode's key map into the mode
// reducer's events and the commands the app runs, over a sidebar with an approval in the inbox and
// a loop. Each press recomputes what is selected from the new state, as the app does on each frame.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Key } from 'ink' with { 'resolution-mode': 'import' };
import type { InboxItem } from '../../src/client/approvals-service';
import type { LoopPicture, VertexPicture } from '../../src/client/loop-picture-service';
import type { Loop } from '../../src/domain/loop';
import type { Command } from '../../src/cli/tui/commands.mjs' with { 'resolution-mode': 'import' };
import type { TuiState } from '../../src/cli/tui/modes.mjs' with { 'resolution-mode': 'import' };
import type { SidebarLists } from '../../src/cli/tui/store-actions';
import { NO_KEY } from '../helpers/terminal';

/** A key as a terminal sends it: a character, or a named key. */
const KEYS: Record<string, [string, Partial<Key>]> = {
  Enter: ['', { return: true }],
  Esc: ['', { escape: true }],
  Tab: ['\t', { tab: true }],
  Down: ['', { downArrow: true }],
  Backspace: ['', { backspace: true }],
  'C-s': ['s', { ctrl: true }],
};

const item: InboxItem = {
  node_run_id: 'run_review',
  loop_id: 'loop_ship',
  loop_name: 'shipping',
  workdir: '/work/ship',
  host: null,
  spec_id: 'spec_1',
  spec_name: 'feature',
  node: 'review',
  round: 1,
  waiting_since: '2030-01-01T10:00:00.000Z',
  deadline: null,
  message: 'Ship it?',
  decide: 'canopy approve loop_ship --node review',
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

const LISTS: SidebarLists = { inbox: [item], loops: [loop], backlog: [], blueprints: [] };

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
  blocked: null,
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
  it('opens an approval of the inbox with Enter, approves it with y, and goes back to the sidebar', async () => {
    const app = await tui();
    assert.equal(app.selected(), 'a:run_review', 'the inbox comes first in the sidebar');
    assert.deepEqual(app.press('y'), [], 'y does nothing before the approval is opened');
    app.press('Enter');
    assert.deepEqual(app.state.mode, { kind: 'approval', item });
    assert.deepEqual(app.press('y'), [{ do: 'decide', decision: { loop_id: 'loop_ship', node: 'review', decision: 'approve' } }]);
    assert.equal(app.mode(), 'normal');
    assert.deepEqual(app.press('Enter', 'q'), [], 'any other key goes back, deciding nothing (nor quitting)');
    assert.equal(app.mode(), 'normal');
  });

  it('rejects with n and the comment typed, Backspace editing it; Esc cancels; an empty comment goes to the service', async () => {
    const app = await tui();
    app.press('Enter', 'n');
    assert.deepEqual(app.state.mode, { kind: 'comment', item, text: '' });
    const commands = app.press('n', 'o', ' ', 't', 'e', 's', 'x', 'Backspace', 't', 's', 'C-s', 'Enter');
    assert.deepEqual(commands, [
      { do: 'decide', decision: { loop_id: 'loop_ship', node: 'review', decision: 'reject', comment: 'no tests' } },
    ]);
    assert.equal(app.mode(), 'normal');

    app.press('Enter', 'n', 'w', 'Esc');
    assert.deepEqual([app.mode(), app.state.message], ['normal', 'cancelled']);

    const empty = app.press('Enter', 'n', 'Enter');
    assert.deepEqual(empty, [{ do: 'decide', decision: { loop_id: 'loop_ship', node: 'review', decision: 'reject', comment: '' } }]);
  });

  it('moves over the sidebar a row per j, several for a burst, and over the main pane once it has the focus', async () => {
    const app = await tui();
    app.press('j');
    assert.equal(app.selected(), 'p:/work/build');
    assert.equal(app.state.project, '/work/build');
    app.press('k', 'jj');
    assert.equal(app.selected(), 'l:loop_build');
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
    assert.equal(app.state.focus, 'sidebar', 'an approval has no main pane to move to');
  });

  it('asks before stopping a loop: y runs the command the question holds, any other key cancels', async () => {
    const app = await tui();
    assert.deepEqual(app.press('r', 't'), [], 'the loop keys do nothing on an approval');
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
    assert.equal(app.selected(), 'p:/work/build', 'the approval of another loop is filtered out');
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

  it('lists a page more of older runs on m, and the newest page again for the next loop followed', async () => {
    const app = await tui();
    const more = app.reduce(app.reduce(app.state, { type: 'older runs' }), { type: 'older runs' });
    assert.equal(more.runPages, 3);
    assert.equal(app.reduce(more, { type: 'loop followed' }).runPages, 1);
  });
});
