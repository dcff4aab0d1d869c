// What keys of `canopy tui` ask to be done beyond its own state (key-map.mts names them as data, so a
// question can hold the command its `y` runs), and running them: through the store's actions, the
// person's editor, or by quitting. Each tells the app what came of it as events for the mode reducer.
import { terminalSafe } from '../output.js';
import { editInTerminal, externalEditor } from './external-editor.js';
import type { TuiEvent } from './modes.mjs';
import type { Decision, EditTarget, LoopAction, TuiActions } from './store-actions.js';
import { textArea } from './text-area.mjs';

export type Command =
  | { do: 'quit' }
  | { do: 'act'; loopId: string; action: LoopAction }
  | { do: 'autorun'; loopId: string; at: string }
  | { do: 'add node' | 'add edge'; loopId: string; line: string }
  | { do: 'remove vertex'; loopId: string; vertex: string }
  | { do: 'remove edge'; edgeId: string }
  | { do: 'decide'; decision: Decision }
  | { do: 'output'; title: string; runId: string }
  /** Reads the vertex's config and edits it. */
  | { do: 'edit config'; loopId: string; vertex: string }
  | { do: 'edit'; target: EditTarget; text: string }
  | { do: 'store'; target: EditTarget; text: string };

export interface CommandContext {
  actions: TuiActions;
  dispatch: (event: TuiEvent) => void;
  quit(): void;
  /** Reads the sidebar and the followed loop again, after an action changed them. */
  refresh(): void;
}

export const errorText = (error: unknown) => terminalSafe(error instanceof Error ? error.message : String(error));

export function commandRunner(context: CommandContext): (command: Command) => void {
  const { actions, dispatch } = context;
  const say = (message: string) => dispatch({ type: 'say', message });
  /** Shows what the work did, or why it was refused (the service's own words). */
  const tell = (work: Promise<string>) => {
    say('…');
    work.then(
      (text) => {
        say(terminalSafe(text));
        context.refresh();
      },
      (error: unknown) => say(`refused: ${errorText(error)}`),
    );
  };
  const store = (target: EditTarget, text: string) => {
    say(`checking the config of ${target.label}…`);
    target.save(text).then(
      (issues) =>
        dispatch(
          issues.length
            ? { type: 'open', mode: { kind: 'refused', target, text, issues } }
            : { type: 'back', message: `stored the config of ${terminalSafe(target.label)}` },
        ),
      (error: unknown) => say(`refused: ${errorText(error)}`),
    );
  };
  /** In $VISUAL or $EDITOR when one is set, else in the built-in editor. */
  const edit = (target: EditTarget, text: string) => {
    const editor = externalEditor();
    if (!editor) return dispatch({ type: 'open', mode: { kind: 'editing', target, area: textArea(text) } });
    let edited: string;
    try {
      edited = editInTerminal(editor, text, `${target.label.replace(/\W+/g, '-')}.json`);
    } catch (error) {
      return dispatch({ type: 'back', message: `not edited: ${errorText(error)}` });
    }
    store(target, edited);
  };
  return (command) => {
    switch (command.do) {
      case 'quit':
        return context.quit();
      case 'act':
        return tell(actions.act(command.loopId, command.action));
      case 'autorun':
        return tell(actions.autorunAt(command.loopId, command.at));
      case 'add node':
        return tell(actions.addNode(command.loopId, command.line));
      case 'add edge':
        return tell(actions.addEdge(command.loopId, command.line));
      case 'remove vertex':
        return tell(actions.removeVertex(command.loopId, command.vertex));
      case 'remove edge':
        return tell(actions.removeEdge(command.edgeId));
      case 'decide':
        return tell(actions.decide(command.decision));
      case 'output':
        return void actions.runOutput(command.runId).then(
          (text) => dispatch({ type: 'open', mode: { kind: 'output', title: command.title, text } }),
          (error: unknown) => say(errorText(error)),
        );
      case 'edit config':
        return void actions.editTarget(command.loopId, command.vertex).then(
          (target) => edit(target, target.text),
          (error: unknown) => say(`refused: ${errorText(error)}`),
        );
      case 'edit':
        return edit(command.target, command.text);
      case 'store':
        return store(command.target, command.text);
    }
  };
}
