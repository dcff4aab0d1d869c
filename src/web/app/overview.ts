// The overview: every project (workdir) and its loops, with what each runs now, its spend and last
// activity; the inbox's count one tap away; a filter over names, workdirs, hosts and statuses.
import { h, type JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ago, usd } from './format';
import { useLiveVersion } from './live';
import type { LoopLine, Overview } from './types';
import { useRead } from './use-read';

export function OverviewPage(): JSX.Element {
  const version = useLiveVersion(null);
  const { data, error } = useRead<Overview>('/api/overview', version);
  const [filter, setFilter] = useState('');
  if (!data) return h('p', { class: 'note' }, error ?? 'Reading the loops…');
  const shown = data.loops.filter((loop) => matches(loop, filter.trim().toLowerCase()));
  const projects = groupBy(shown, (loop) => `${loop.host ?? 'any host'}:${loop.workdir}`);
  return h(
    'main',
    { class: 'overview' },
    h(
      'div',
      { class: 'bar' },
      h('a', { class: 'inbox-link', href: '#/inbox', 'data-count': data.inbox_count }, `Inbox (${data.inbox_count})`),
      h('input', {
        class: 'filter',
        type: 'search',
        placeholder: 'Filter loops: name, workdir, host, status',
        value: filter,
        onInput: (event: Event) => setFilter((event.target as HTMLInputElement).value),
      }),
    ),
    error && h('p', { class: 'refused' }, error),
    shown.length === 0 &&
      h('p', { class: 'note' }, data.loops.length ? 'No loop matches the filter.' : 'No loops yet: create one with canopy loop create.'),
    [...projects].map(([key, loops]) =>
      h(
        'section',
        { class: 'project', key },
        h('h2', null, loops[0].workdir, h('span', { class: 'host' }, loops[0].host ?? 'any host')),
        h('ul', { class: 'loops' }, loops.map(loopLine)),
      ),
    ),
  );
}

function loopLine(loop: LoopLine): JSX.Element {
  const node = loop.latest_node;
  return h(
    'li',
    { class: 'loop-line', key: loop.loop_id, 'data-loop': loop.loop_id },
    h('a', { href: `#/loops/${loop.loop_id}`, class: 'name' }, loop.name),
    h('span', { class: `status status-${loop.status}` }, loop.status),
    h('span', { class: 'node' }, node ? `${node.node} · round ${node.round} · ${node.status}` : 'no node run yet'),
    h('span', { class: 'spend' }, usd(loop.spend.cost_usd)),
    h('time', { class: 'activity', dateTime: loop.last_activity, title: loop.last_activity }, ago(loop.last_activity)),
  );
}

function matches(loop: LoopLine, filter: string): boolean {
  if (!filter) return true;
  return [loop.name, loop.workdir, loop.host ?? '', loop.status, loop.loop_id].some((text) => text.toLowerCase().includes(filter));
}

function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(keyOf(item), [...(groups.get(keyOf(item)) ?? []), item]);
  return groups;
}
