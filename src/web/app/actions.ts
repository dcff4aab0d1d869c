// A loop's actions (run, pause, retry, skip, stop, reset) and feedback into its running agents. Stop
// and reset ask first, as the terminal app does; a refusal shows the service's message as the CLI prints it.
import { h, type JSX } from 'preact';
import { useState } from 'preact/hooks';
import { postJson } from './api';

const ACTIONS = ['run', 'pause', 'retry', 'skip', 'stop', 'reset'] as const;
const ASK_FIRST: Partial<Record<(typeof ACTIONS)[number], string>> = {
  stop: 'Stop this loop now? Its running node is ended.',
  reset: "Reset this loop's specs? Their failure counts start again.",
};

export function LoopActions(props: { loopId: string }): JSX.Element {
  const [said, setSaid] = useState<{ text: string; refused: boolean } | null>(null);
  const [feedback, setFeedback] = useState('');
  const act = async (path: string, body?: unknown, done = 'done') => {
    try {
      await postJson(path, body);
      setSaid({ text: done, refused: false });
      return true;
    } catch (error) {
      setSaid({ text: (error as Error).message, refused: true });
      return false;
    }
  };
  return h(
    'section',
    { class: 'actions' },
    h(
      'div',
      { class: 'buttons' },
      ACTIONS.map((action) =>
        h(
          'button',
          {
            key: action,
            'data-action': action,
            onClick: () => {
              const question = ASK_FIRST[action];
              if (question && !window.confirm(question)) return;
              void act(`/api/loops/${props.loopId}/${action}`, {}, `${action}: done`);
            },
          },
          action,
        ),
      ),
    ),
    h(
      'form',
      {
        class: 'feedback',
        onSubmit: (event: Event) => {
          event.preventDefault();
          void act(`/api/loops/${props.loopId}/feedback`, { message: feedback }, 'feedback queued for the next agent run').then(
            (sent) => sent && setFeedback(''),
          );
        },
      },
      h('input', {
        name: 'feedback',
        placeholder: 'Feedback for the next agent run',
        value: feedback,
        onInput: (event: Event) => setFeedback((event.target as HTMLInputElement).value),
      }),
      h('button', { type: 'submit' }, 'send'),
    ),
    said && h('p', { class: said.refused ? 'refused' : 'said', role: 'status' }, said.text),
  );
}
