// `canopy tui`: the sidebar (the inbox, projects and their loops, the backlog, blueprints) beside the
// main pane of the selected item, with keys to decide approvals, steer loops and edit their configs.
// A key's reaction comes from its mode's key map, moves the state through the mode reducer and may
// run a command. ESM because Ink is; the CLI loads it only for a TTY.
import { Box, render, Text, useApp, useStdout } from 'ink';
import { createElement as h, useMemo, useReducer, useState, type ReactElement } from 'react';
import { commandRunner } from './commands.mjs';
import { ENTER_APP_SCREEN, LEAVE_APP_SCREEN } from './external-editor.js';
import { useFollowedLoop, useLatestInput, useNow, useSidebarLists } from './hooks.mjs';
import { pressed, reactionTo } from './key-map.mjs';
import { MainPane, StatusLine } from './main-pane.mjs';
import { INITIAL_STATE, reduce } from './modes.mjs';
import { SidebarView } from './panes.mjs';
import { mainSelection, sidebarSelection } from './selection.mjs';
import type { TuiActions } from './store-actions.js';

const SIDEBAR_WIDTH = 38;

function TuiApp(props: { actions: TuiActions }): ReactElement {
  const { actions } = props;
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [state, dispatch] = useReducer(reduce, INITIAL_STATE);
  const [refreshes, setRefreshes] = useState(0);
  const readAgain = () => setRefreshes((n) => n + 1);
  const failed = (message: string) => dispatch({ type: 'say', message });

  const { lists, autoruns } = useSidebarLists(actions, refreshes, failed);
  const { cursor, project, showArchived, filter } = state;
  const side = useMemo(
    () => sidebarSelection({ cursor, project, showArchived, filter }, lists, actions.cwd),
    [cursor, project, showArchived, filter, lists, actions.cwd],
  );
  const followed = useFollowedLoop(actions, side.loop, state.runPages, {
    followed: () => dispatch({ type: 'loop followed' }),
    statusChanged: readAgain,
    failed,
  });
  const { picture, details } = followed;
  const view = { ...side, ...mainSelection(state, picture, details) };
  const now = useNow(picture);
  const run = useMemo(
    () =>
      commandRunner({
        actions,
        dispatch,
        quit: exit,
        refresh: () => {
          readAgain();
          followed.refresh();
        },
      }),
    [actions, exit, followed.refresh],
  );

  useLatestInput((input, key) => {
    const { event, command } = reactionTo(state, view, pressed(input, key));
    if (event) dispatch(event);
    if (command) run(command);
  });

  const height = Math.max(10, (stdout.rows || 24) - 1);
  const pane = (focused: boolean) => ({ borderStyle: 'single' as const, borderColor: focused ? 'cyan' : 'gray' });
  return h(
    Box,
    { flexDirection: 'column', height },
    h(
      Box,
      { flexGrow: 1, overflow: 'hidden' },
      h(
        Box,
        { width: SIDEBAR_WIDTH, flexShrink: 0, flexDirection: 'column', ...pane(state.focus === 'sidebar') },
        h(SidebarView, {
          rows: view.rows,
          autoruns,
          cursor: view.selected?.key ?? null,
          focused: state.focus === 'sidebar',
          height: height - 4,
        }),
      ),
      h(
        Box,
        { flexGrow: 1, flexDirection: 'column', overflow: 'hidden', paddingX: 1, ...pane(state.focus === 'main') },
        h(MainPane, { state, view, lists, autoruns, picture, details, now, height }),
      ),
    ),
    h(StatusLine, { state }),
    h(
      Text,
      { dimColor: true, wrap: 'truncate' },
      'canopy tui · ? keys · Tab pane · / filter · Enter y n inbox · r p c s t R A @ loop · a w x graph · i edit · q quit',
    ),
  );
}

/** Draws the app on the terminal's alternate screen until the person quits, then gives the screen back. */
export async function runTui(actions: TuiActions): Promise<void> {
  process.stdout.write(ENTER_APP_SCREEN);
  const restore = () => process.stdout.write(LEAVE_APP_SCREEN);
  process.once('exit', restore);
  try {
    const instance = render(h(TuiApp, { actions }));
    await instance.waitUntilExit();
  } finally {
    process.removeListener('exit', restore);
    restore();
  }
}
