// One node run: what it was given and what it did, its failure, its tokens and cost, its HEAD before and
// after with the diff between, and what it left uncommitted. While it runs the page follows it from the
// live feed: its output as it lands, then its end. Everything an agent wrote is text: preact sets it as a
// text node, never as markup.
import { h, type JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ChangesView } from './diff-view';
import { tokens, usd } from './format';
import { useLiveVersion } from './live';
import type { NodeRun } from './types';
import { useRead } from './use-read';

export function RunPageView(props: { runId: string }): JSX.Element {
  // The loop of the run while it is open: its end is a move of that loop, its output an output event of its own.
  const [following, setFollowing] = useState<string | null>(null);
  const version = useLiveVersion(following ? [following] : [], following ? [props.runId] : []);
  const { data: run, error } = useRead<NodeRun>(`/api/runs/${props.runId}`, version);
  const openIn = run && !run.ended_at ? run.loop_id : null;
  useEffect(() => setFollowing(openIn), [openIn]);
  if (!run) return h('p', { class: error ? 'refused' : 'note' }, error ?? 'Reading the node run…');
  const text = (title: string, body: string | null, name: string) =>
    body ? h('section', { class: `text ${name}` }, h('h2', null, title), h('pre', { 'data-text': name }, body)) : null;
  return h(
    'main',
    { class: 'run-page' },
    h('p', null, h('a', { href: `#/loops/${run.loop_id}` }, '← loop')),
    h(
      'h1',
      null,
      `${run.node_name} · round ${run.round}`,
      ' ',
      h('span', { class: `status state-${run.status}`, 'data-run-status': run.status }, run.outcome ?? run.status),
    ),
    h(
      'dl',
      { class: 'facts' },
      fact('kind', run.kind),
      fact('started', run.started_at),
      fact('ended', run.ended_at ?? 'still running'),
      run.failure_kind && fact('failure', `${run.failure_kind}: ${run.reason ?? ''}`),
      !run.failure_kind && run.reason && fact('reason', run.reason),
      run.executed_platform && fact('agent', `${run.executed_platform}${run.executed_model ? ` · ${run.executed_model}` : ''}`),
      run.executed_platform &&
        fact(
          'tokens',
          `${tokens(run.input_tokens)} in${run.cached_input_tokens ? ` (${tokens(run.cached_input_tokens)} cached)` : ''} · ` +
            `${tokens(run.output_tokens)} out · ${usd(run.cost_usd)}`,
        ),
      fact('HEAD', `${run.head_before ?? '–'} → ${run.head_after ?? '–'}`),
    ),
    // Read again once the run ends, when its HEAD after is known.
    h(ChangesView, { key: run.ended_at ?? 'open', runId: run.id }),
    text('Report', run.reported_output, 'report'),
    text('Prompt', run.input, 'prompt'),
    text('Output', run.stdout, 'stdout'),
    text('Errors', run.stderr, 'stderr'),
  );
}

const fact = (term: string, value: string) => [h('dt', { key: `${term}-t` }, term), h('dd', { key: `${term}-d` }, value)];
