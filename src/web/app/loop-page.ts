// A loop: its graph live, its actions, its specs and settings, and its node runs newest first, paged on past the newest.
import { h, type JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { getJson } from './api';
import { LoopActions } from './actions';
import { tokens, usd } from './format';
import { GraphView } from './graph';
import { useLiveVersion } from './live';
import type { LoopPage, RunLine, RunPage } from './types';
import { useRead } from './use-read';

export function LoopPageView(props: { loopId: string }): JSX.Element {
  const version = useLiveVersion([props.loopId]);
  const { data, error } = useRead<LoopPage>(`/api/loops/${props.loopId}`, version);
  if (!data) return h('p', { class: error ? 'refused' : 'note' }, error ?? 'Reading the loop…');
  const { loop, picture } = data;
  return h(
    'main',
    { class: 'loop-page' },
    h('h1', null, loop.name, ' ', h('span', { class: `status status-${loop.status}`, 'data-loop-status': loop.status }, loop.status)),
    h('p', { class: 'where' }, `${loop.workdir} · ${loop.host ?? 'any host'}`, picture.spec && ` · spec ${picture.spec.name}`),
    picture.live_unavailable && h('p', { class: 'note' }, picture.live_unavailable),
    picture.vertices
      .filter((vertex) => vertex.state === 'waiting')
      .map((vertex) =>
        h(
          'p',
          { key: vertex.name, class: 'waiting-approval', 'data-waiting': vertex.name },
          `${vertex.name} waits for a person: `,
          h('a', { href: '#/inbox' }, 'read its message and decide in the inbox'),
        ),
      ),
    h(LoopActions, { loopId: loop.id }),
    h(GraphView, { vertices: picture.vertices }),
    h(
      'section',
      { class: 'specs' },
      h('h2', null, 'Specs'),
      h(
        'ul',
        null,
        loop.specs.map((spec) => h('li', { key: spec.id }, `${spec.name} · ${spec.status}`)),
      ),
      h(
        'p',
        null,
        `Spend: ${usd(loop.agent_usage.total.cost_usd)} · ${tokens(loop.agent_usage.total.input_tokens + loop.agent_usage.total.output_tokens)} tokens · ${loop.agent_usage.total.agent_runs} agent runs`,
      ),
    ),
    h('section', { class: 'settings' }, h('h2', null, 'Settings'), h('pre', null, JSON.stringify(loop.settings, null, 2))),
    h(RunList, { loopId: loop.id, version }),
  );
}

/** The newest page follows the live version; older pages, once asked for, stay as read. */
function RunList(props: { loopId: string; version: number }): JSX.Element {
  const newest = useRead<RunPage>(`/api/loops/${props.loopId}/runs`, props.version);
  const [older, setOlder] = useState<RunPage[]>([]);
  useEffect(() => setOlder([]), [props.loopId]);
  if (!newest.data) return h('p', { class: 'note' }, newest.error ?? 'Reading the node runs…');
  const pages = [newest.data, ...older];
  const cursor = pages[pages.length - 1].next_cursor;
  return h(
    'section',
    { class: 'runs' },
    h('h2', null, 'Node runs'),
    h('ol', { class: 'run-list' }, pages.flatMap((page) => page.runs).map(runLine)),
    cursor &&
      h(
        'button',
        {
          class: 'older',
          onClick: () =>
            void getJson<RunPage>(`/api/loops/${props.loopId}/runs?before=${encodeURIComponent(cursor)}`).then((page) =>
              setOlder([...older, page]),
            ),
        },
        'Older runs',
      ),
  );
}

function runLine(run: RunLine): JSX.Element {
  return h(
    'li',
    { key: run.run_id, class: `run state-${run.status}`, 'data-run': run.run_id },
    h('a', { href: `#/runs/${run.run_id}` }, `${run.node} · round ${run.round}`),
    h('span', { class: 'status' }, run.outcome ?? run.status),
    run.agent && h('span', { class: 'spend' }, usd(run.agent.cost_usd)),
    h('time', { dateTime: run.started_at }, run.started_at.replace('T', ' ').slice(0, 19)),
    run.reason && h('span', { class: 'reason' }, run.reason),
  );
}
