// A node run's changes: the paths its commits touched with their patch, line by line as text, and
// what it left uncommitted.
import { h, type JSX } from 'preact';
import type { RunChanges } from './types';
import { useRead } from './use-read';

const lineClass = (line: string) =>
  line.startsWith('+++') || line.startsWith('---')
    ? 'file'
    : line.startsWith('+')
      ? 'added'
      : line.startsWith('-')
        ? 'removed'
        : line.startsWith('@@')
          ? 'hunk'
          : '';

export function ChangesView(props: { runId: string }): JSX.Element {
  const { data, error } = useRead<RunChanges>(`/api/runs/${props.runId}/changes`, 0);
  if (!data) return h('p', { class: error ? 'refused' : 'note' }, error ?? 'Reading the changes…');
  const { committed } = data;
  return h(
    'section',
    { class: 'changes' },
    h('h2', null, 'Changes'),
    committed === null && h('p', { class: 'note' }, 'HEAD did not move.'),
    committed && 'unavailable' in committed && h('p', { class: 'note' }, committed.unavailable),
    committed &&
      'patch' in committed && [
        h(
          'ul',
          { key: 'paths', class: 'paths' },
          committed.paths.map((path) => h('li', { key: path }, path)),
        ),
        h(
          'pre',
          { key: 'patch', class: 'diff', 'data-text': 'diff' },
          committed.patch.split('\n').map((line, index) => h('span', { key: index, class: lineClass(line) }, `${line}\n`)),
        ),
        committed.cut && h('p', { key: 'cut', class: 'note' }, 'The patch is cut here: it is over 1 MB.'),
      ],
    data.uncommitted_paths !== null &&
      h('p', null, data.uncommitted_paths.length ? `Left uncommitted: ${data.uncommitted_paths.join(', ')}` : 'Nothing left uncommitted.'),
  );
}
