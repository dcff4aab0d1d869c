// Spend: cost and tokens per day drawn by uPlot, and the totals per loop and per spec.
import { h, type JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { tokens, usd } from './format';
import type { SpendReport } from './types';
import { useRead } from './use-read';
import { useLiveVersion } from './live';

export function SpendPage(): JSX.Element {
  const version = useLiveVersion(null);
  const { data, error } = useRead<SpendReport>('/api/spend', version);
  if (!data) return h('p', { class: error ? 'refused' : 'note' }, error ?? 'Reading the spend…');
  const row = (label: string | JSX.Element, spend: SpendReport['per_loop'][number] | SpendReport['per_spec'][number], key: string) =>
    h(
      'tr',
      { key },
      h('td', null, label),
      h('td', null, usd(spend.cost_usd)),
      h('td', null, tokens(spend.input_tokens + spend.output_tokens)),
      h('td', null, spend.agent_runs),
    );
  const head = h(
    'tr',
    null,
    ['', 'cost', 'tokens', 'agent runs'].map((title) => h('th', { key: title }, title)),
  );
  return h(
    'main',
    { class: 'spend' },
    h('h1', null, 'Spend'),
    data.per_day.length === 0 ? h('p', { class: 'note' }, 'No agent has run yet.') : h(DailyChart, { days: data.per_day }),
    h('h2', null, 'Per loop'),
    h(
      'table',
      { class: 'per-loop' },
      h('thead', null, head),
      h(
        'tbody',
        null,
        data.per_loop.map((loop) => row(h('a', { href: `#/loops/${loop.loop_id}` }, loop.name), loop, loop.loop_id)),
      ),
    ),
    h('h2', null, 'Per spec'),
    h(
      'table',
      { class: 'per-spec' },
      h('thead', null, head),
      h(
        'tbody',
        null,
        data.per_spec.map((spec) => row(spec.spec_name ?? '(no spec)', spec, `${spec.loop_id}-${spec.spec_id}`)),
      ),
    ),
  );
}

function DailyChart(props: { days: SpendReport['per_day'] }): JSX.Element {
  const frame = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = frame.current!;
    const seconds = props.days.map((day) => Date.parse(`${day.day}T00:00:00Z`) / 1000);
    const chart = new uPlot(
      {
        width: element.clientWidth,
        height: 240,
        series: [
          {},
          { label: 'cost ($)', stroke: '#2e90fa', width: 2, points: { show: true }, scale: 'usd' },
          { label: 'tokens', stroke: '#12b76a', width: 2, points: { show: true }, scale: 'tokens' },
        ],
        axes: [{}, { scale: 'usd' }, { scale: 'tokens', side: 1, grid: { show: false } }],
        scales: { x: { time: true } },
      },
      [seconds, props.days.map((day) => day.cost_usd), props.days.map((day) => day.input_tokens + day.output_tokens)],
      element,
    );
    const fit = () => chart.setSize({ width: element.clientWidth, height: 240 });
    addEventListener('resize', fit);
    return () => {
      removeEventListener('resize', fit);
      chart.destroy();
    };
  }, [props.days]);
  return h('div', { class: 'chart', ref: frame });
}
