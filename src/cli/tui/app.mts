// `canopy tui`: the sidebar (projects and their loops, the backlog, blueprints) beside the main
// pane of the selected item, with keys to steer loops and edit their configs. Lists refresh on a
// slow interval and the selected loop is followed; state changes only when what was read changed,
// so an idle app does not redraw. ESM because Ink is; the CLI loads it only for a TTY.
import { Box, render, Text, useApp, useInput, useStdout } from 'ink';
import { createElement as h, useEffect, useLayoutEffect, useMemo, useRef, useState, type ReactElement } from 'react';
import type { EdgeView } from '../../client/graph-view-service.js';
import type { LoopPicture } from '../../client/loop-picture-service.js';
import type { Issue } from '../../domain/errors.js';
import { terminalSafe } from '../output.js';
import { editInTerminal, ENTER_APP_SCREEN, externalEditor, LEAVE_APP_SCREEN } from './external-editor.js';
import { EDGE_SYNTAX, NODE_SYNTAX } from './graph-input.js';
import { HelpPane, LoopPane, RefusalPane, SidebarView, TextPane } from './panes.mjs';
import { projectOfRow, sidebarRows, type SidebarRow } from './sidebar.js';
import type { EditTarget, LoopAction, LoopDetails, SidebarLists, TuiActions } from './store-actions.js';
import { areaKey, areaText, TextAreaView, textArea, type TextArea } from './text-area.mjs';

export const SIDEBAR_REFRESH_MS = 2_000;
const SIDEBAR_WIDTH = 38;

type Prompt = 'filter' | 'autorun' | 'node' | 'edge';

type Mode =
  | { kind: 'normal' }
  | { kind: 'help' }
  | { kind: 'prompt'; purpose: Prompt; text: string }
  | { kind: 'confirm'; question: string; work: () => Promise<string> }
  | { kind: 'output'; title: string; text: string }
  | { kind: 'editing'; target: EditTarget; area: TextArea }
  | { kind: 'refused'; target: EditTarget; text: string; issues: Issue[] };

const PROMPT_LABEL: Record<Prompt, string> = {
  filter: '/',
  autorun: 'autorun at (ISO-8601, empty cancels): ',
  node: `add node: ${NODE_SYNTAX}\n> `,
  edge: `add edge: ${EDGE_SYNTAX}\n> `,
};

const CONFIRM_KEYS = 'y confirms, any other key cancels';

const CONFIRMED: Partial<Record<LoopAction, string>> = {
  stop: 'Stop',
  reset: 'Reset the specs of',
  archive: 'Archive',
  restore: 'Restore',
};

const errorText = (error: unknown) => terminalSafe(error instanceof Error ? error.message : String(error));

/** The stored edges in the order the graph draws them: under each vertex in turn. */
function drawnEdges(picture: LoopPicture | null, edges: readonly EdgeView[]): EdgeView[] {
  return (picture?.vertices ?? []).flatMap((vertex) =>
    vertex.edges.flatMap((drawn) =>
      edges.filter((edge) => edge.source === vertex.name && edge.target === drawn.target && edge.condition === drawn.condition),
    ),
  );
}

/** Calls `set` only when the value read differs from the last one, so an unchanged read renders nothing. */
function useChangedState<T>(initial: T): [T, (next: T) => void] {
  const [value, setValue] = useState(initial);
  const last = useRef(JSON.stringify(initial));
  return [
    value,
    (next: T) => {
      const text = JSON.stringify(next);
      if (text === last.current) return;
      last.current = text;
      setValue(next);
    },
  ];
}

type InputHandler = Parameters<typeof useInput>[0];

/**
 * ink's useInput swaps its handler in a passive effect, which a busy machine runs after the frame is
 * on the screen: a key pressed at once went to the last frame's handler (a sidebar still empty). Here
 * the handler is swapped as the frame is committed, so a key acts on what the screen shows.
 */
function useLatestInput(handler: InputHandler): void {
  const latest = useRef(handler);
  useLayoutEffect(() => {
    latest.current = handler;
  });
  useInput(useMemo<InputHandler>(() => (input, key) => latest.current(input, key), []));
}

function TuiApp(props: { actions: TuiActions }): ReactElement {
  const { actions } = props;
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [lists, setLists] = useChangedState<SidebarLists | null>(null);
  const [autoruns, setAutoruns] = useChangedState<Record<string, string>>({});
  const [refreshes, setRefreshes] = useState(0);
  const [cursor, setCursor] = useState<string | null>(null);
  const [project, setProject] = useState<string | null>(null);
  const [showArchived, setShowArchived] = useState(false);
  const [filter, setFilter] = useState('');
  const [focus, setFocus] = useState<'sidebar' | 'main'>('sidebar');
  const [mode, setMode] = useState<Mode>({ kind: 'normal' });
  const [message, setMessage] = useState('');
  const [picture, setPicture] = useChangedState<LoopPicture | null>(null);
  const [details, setDetails] = useChangedState<LoopDetails | null>(null);
  const [mainCursor, setMainCursor] = useState(0);
  const [expanded, setExpanded] = useState(false);
  const [now, setNow] = useState(Date.now());
  const following = useRef<{ refresh(): void } | null>(null);

  useEffect(() => {
    let stopped = false;
    const read = () => {
      // Apart from the lists, so a slow Temporal does not hold them back.
      void actions.readAutoruns().then((next) => !stopped && setAutoruns(next));
      return actions.readSidebar().then(
        (next) => !stopped && setLists(next),
        (error: unknown) => setMessage(errorText(error)),
      );
    };
    void read();
    const timer = setInterval(() => void read(), SIDEBAR_REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [actions, refreshes]);

  const rows = useMemo(
    () => (lists ? sidebarRows(lists, { cwd: actions.cwd, project, showArchived, filter }) : []),
    [lists, actions.cwd, project, showArchived, filter],
  );
  const selectable = rows.filter((row) => row.kind !== 'heading');
  const selected: SidebarRow | undefined = selectable.find((row) => row.key === cursor) ?? selectable[0];
  const loop = selected?.kind === 'loop' ? selected.loop : null;

  useEffect(() => {
    setPicture(null);
    setDetails(null);
    setMainCursor(0);
    if (!loop) return;
    let status = loop.status as string;
    const followed = actions.follow(loop.id, (next) => {
      setPicture(next);
      // On a change of status the sidebar's glyph catches up at once rather than at its next refresh.
      if (next.status !== status) setRefreshes((n) => n + 1);
      status = next.status;
      actions.loopDetails(loop.id).then(setDetails, (error: unknown) => setMessage(errorText(error)));
    });
    following.current = followed;
    return () => followed.stop();
  }, [actions, loop?.id]);

  // Elapsed times tick only while a node runs.
  useEffect(() => {
    setNow(Date.now());
    if (!picture?.running) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [picture]);

  // The main pane's cursor moves over the vertices, then the edges, then the runs.
  const vertices = picture?.vertices.map((v) => v.name) ?? [];
  const edges = drawnEdges(picture, details?.edges ?? []);
  const runs = details?.runs ?? [];
  const mainItems = vertices.length + edges.length + runs.length;
  const item = focus === 'main' ? Math.min(mainCursor, mainItems - 1) : -1;
  const selectedVertex = item >= 0 && item < vertices.length ? vertices[item] : null;
  const currentVertex = selectedVertex ?? picture?.running ?? null;
  const selectedEdge = item >= vertices.length ? (edges[item - vertices.length] ?? null) : null;
  const selectedRun = item >= vertices.length + edges.length ? (runs[item - vertices.length - edges.length]?.run_id ?? null) : null;

  const say = (work: Promise<string>) => {
    setMessage('…');
    work.then(
      (text) => {
        setMessage(terminalSafe(text));
        setRefreshes((n) => n + 1);
        following.current?.refresh();
      },
      (error: unknown) => setMessage(`refused: ${errorText(error)}`),
    );
  };
  const openOutput = (title: string, runId: string) =>
    actions.runOutput(runId).then(
      (text) => setMode({ kind: 'output', title, text }),
      (error: unknown) => setMessage(errorText(error)),
    );
  const edit = (target: EditTarget, text: string) => {
    const editor = externalEditor();
    if (!editor) return setMode({ kind: 'editing', target, area: textArea(text) });
    let edited: string;
    try {
      edited = editInTerminal(editor, text, `${target.label.replace(/\W+/g, '-')}.json`);
    } catch (error) {
      setMode({ kind: 'normal' });
      return setMessage(`not edited: ${errorText(error)}`);
    }
    store(target, edited);
  };
  const store = (target: EditTarget, edited: string) => {
    setMessage(`checking the config of ${target.label}…`);
    target.save(edited).then(
      (issues) => {
        if (issues.length) return setMode({ kind: 'refused', target, text: edited, issues });
        setMode({ kind: 'normal' });
        setMessage(`stored the config of ${terminalSafe(target.label)}`);
      },
      (error: unknown) => setMessage(`refused: ${errorText(error)}`),
    );
  };
  const confirmRemoval = (loopId: string) => {
    if (selectedEdge) {
      const { id, source, target, condition } = selectedEdge;
      return setMode({
        kind: 'confirm',
        question: terminalSafe(`Remove the edge ${source} → ${target} on ${condition}? ${CONFIRM_KEYS}`),
        work: () => actions.removeEdge(id),
      });
    }
    const vertex = picture?.vertices.find((v) => v.name === selectedVertex);
    if (!vertex) return setMessage('select a node or an edge in the main pane (Tab, then ↑ ↓) to remove it');
    setMode({
      kind: 'confirm',
      question: terminalSafe(`Remove the ${vertex.kind} ${vertex.name} and its edges? ${CONFIRM_KEYS}`),
      work: () => actions.removeVertex(loopId, vertex.name),
    });
  };
  const moveSidebar = (step: number) => {
    const at = selectable.findIndex((row) => row.key === selected?.key);
    const next = selectable[Math.min(selectable.length - 1, Math.max(0, at + step))];
    if (!next) return;
    setCursor(next.key);
    const workdir = projectOfRow(next);
    if (workdir) setProject(workdir);
  };

  useLatestInput((input, key) => {
    if (mode.kind === 'help' || mode.kind === 'output') return setMode({ kind: 'normal' });
    if (mode.kind === 'confirm') {
      setMode({ kind: 'normal' });
      if (input === 'y') say(mode.work());
      else setMessage('cancelled');
      return;
    }
    if (mode.kind === 'editing') {
      if (key.escape) {
        setMode({ kind: 'normal' });
        return setMessage('edit abandoned; nothing was changed');
      }
      if (key.ctrl && input === 's') return store(mode.target, areaText(mode.area));
      // Several keys of one read come as several calls before a render: each builds on the last.
      return setMode((was) => (was.kind === 'editing' ? { ...was, area: areaKey(was.area, input, key) } : was));
    }
    if (mode.kind === 'prompt') {
      const done = () => setMode({ kind: 'normal' });
      if (key.escape) {
        if (mode.purpose === 'filter') setFilter('');
        return done();
      }
      if (key.return) {
        done();
        const line = mode.text.trim();
        if (!loop || mode.purpose === 'filter') return;
        if (mode.purpose === 'autorun') return say(actions.autorunAt(loop.id, line));
        if (!line) return setMessage('cancelled');
        return say(mode.purpose === 'node' ? actions.addNode(loop.id, line) : actions.addEdge(loop.id, line));
      }
      const text = key.backspace || key.delete ? mode.text.slice(0, -1) : mode.text + (key.ctrl || key.meta ? '' : input);
      if (mode.purpose === 'filter') setFilter(text);
      return setMode({ ...mode, text });
    }
    if (mode.kind === 'refused') {
      if (input === 'i') return edit(mode.target, mode.text);
      if (key.escape || input === 'n') {
        setMode({ kind: 'normal' });
        return setMessage('edit abandoned; nothing was changed');
      }
      return;
    }
    if (input === 'q') return exit();
    if (input === '?') return setMode({ kind: 'help' });
    if (key.tab) return setFocus((was) => (was === 'sidebar' && loop ? 'main' : 'sidebar'));
    if (input === '/') return setMode({ kind: 'prompt', purpose: 'filter', text: filter });
    if (input === 'h') return setShowArchived((was) => !was);
    // Keys typed faster than a frame arrive together: 'jjj' moves three rows.
    const step = key.upArrow ? -1 : key.downArrow ? 1 : /^k+$/.test(input) ? -input.length : /^j+$/.test(input) ? input.length : 0;
    if (step && focus === 'main') return setMainCursor((at) => Math.min(Math.max(0, mainItems - 1), Math.max(0, at + step)));
    if (step) return moveSidebar(step);
    if (key.return) {
      if (focus === 'sidebar' && loop) return setFocus('main');
      if (selectedRun) return void openOutput(`output of run ${selectedRun}`, selectedRun);
      return;
    }
    if (!loop) return;
    const simple: Record<string, LoopAction> = { r: 'run', p: 'pause', c: 'retry', s: 'skip' };
    if (simple[input]) return say(actions.act(loop.id, simple[input]));
    const destructive: Record<string, LoopAction> = { t: 'stop', R: 'reset', A: loop.archived ? 'restore' : 'archive' };
    const action = destructive[input];
    if (action)
      return setMode({
        kind: 'confirm',
        question: `${CONFIRMED[action]} loop ${terminalSafe(loop.name)}? ${CONFIRM_KEYS}`,
        work: () => actions.act(loop.id, action),
      });
    const prompts: Record<string, Prompt> = { '@': 'autorun', a: 'node', w: 'edge' };
    if (prompts[input]) return setMode({ kind: 'prompt', purpose: prompts[input], text: '' });
    if (input === 'x') return confirmRemoval(loop.id);
    if (input === 'e') return setExpanded((was) => !was);
    const vertex = picture?.vertices.find((v) => v.name === (currentVertex ?? vertices[0]));
    if (input === 'o') {
      if (!vertex?.last_run_id) return setMessage(`no run of ${vertex?.name ?? 'this node'} yet`);
      return void openOutput(`last run output of ${vertex.name}`, vertex.last_run_id);
    }
    if (input === 'i' && vertex) {
      actions.editTarget(loop.id, vertex.name).then(
        (target) => edit(target, target.text),
        (error: unknown) => setMessage(`refused: ${errorText(error)}`),
      );
    }
  });

  const height = Math.max(10, (stdout.rows || 24) - 1);
  const main = (): ReactElement | null => {
    if (mode.kind === 'help') return h(HelpPane);
    if (mode.kind === 'output') return h(TextPane, { title: `${mode.title} (any key to go back)`, lines: [], text: mode.text });
    if (mode.kind === 'refused') return h(RefusalPane, { label: mode.target.label, issues: mode.issues });
    if (mode.kind === 'editing') return h(TextAreaView, { title: `editing ${mode.target.label}`, area: mode.area, height: height - 4 });
    if (!lists) return h(Text, null, 'Reading the store…');
    switch (selected?.kind) {
      case 'loop':
        return h(LoopPane, {
          loop: selected.loop,
          autorunAt: autoruns[selected.loop.id] ?? null,
          picture,
          details,
          current: currentVertex,
          selectedEdge,
          selectedRun,
          expanded,
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
        const loops = lists.loops.filter((l) => l.workdir === selected.workdir && (showArchived || !l.archived));
        const counts = [...new Set(loops.map((l) => l.status))].map(
          (status) => `${loops.filter((l) => l.status === status).length} ${status}`,
        );
        return h(TextPane, { title: `project ${selected.workdir}`, lines: [], text: `${loops.length} loop(s): ${counts.join(', ')}` });
      }
      default:
        return h(Text, null, 'No loops, specs or blueprints match.');
    }
  };
  const statusLine = (): ReactElement => {
    if (mode.kind === 'prompt') return h(Text, null, PROMPT_LABEL[mode.purpose], mode.text, h(Text, { inverse: true }, ' '));
    if (mode.kind === 'confirm') return h(Text, { color: 'yellow' }, mode.question);
    // Wrapped, not cut: a refusal names every problem (an unknown blueprint, the available ones).
    return h(Text, { color: 'magenta' }, message || (filter ? `filter: ${filter}` : ''));
  };
  return h(
    Box,
    { flexDirection: 'column', height },
    h(
      Box,
      { flexGrow: 1, overflow: 'hidden' },
      h(
        Box,
        {
          width: SIDEBAR_WIDTH,
          flexShrink: 0,
          flexDirection: 'column',
          borderStyle: 'single',
          borderColor: focus === 'sidebar' ? 'cyan' : 'gray',
        },
        h(SidebarView, { rows, autoruns, cursor: selected?.key ?? null, focused: focus === 'sidebar', height: height - 4 }),
      ),
      h(
        Box,
        {
          flexGrow: 1,
          flexDirection: 'column',
          overflow: 'hidden',
          borderStyle: 'single',
          borderColor: focus === 'main' ? 'cyan' : 'gray',
          paddingX: 1,
        },
        main(),
      ),
    ),
    statusLine(),
    h(
      Text,
      { dimColor: true, wrap: 'truncate' },
      'canopy tui · ? keys · Tab pane · / filter · r p c s t R A @ loop · a w x graph · i edit · q quit',
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
