// What `canopy tui` draws: the sidebar's visible rows, and the main pane for a project, a loop,
// a waiting approval, a backlog spec or a blueprint. Every text from the store passes through terminalSafe.
import { Box, Text } from 'ink';
import { createElement as h, type ReactElement } from 'react';
import type { InboxItem } from '../../client/approvals-service.js';
import type { EdgeView } from '../../client/graph-view-service.js';
import type { LoopPicture } from '../../client/loop-picture-service.js';
import type { Issue } from '../../domain/errors.js';
import type { Loop } from '../../domain/loop.js';
import { terminalSafe } from '../output.js';
import { LoopGraph, STATE_COLOR } from '../watch/loop-graph.mjs';
import { KEYS } from './keys.js';
import { SCHEDULED_GLYPH, STATUS_GLYPH, type SidebarRow } from './sidebar.js';
import type { LoopDetails } from './store-actions.js';

const safe = (text: string) => terminalSafe(text, { multiline: false });

function Glyph(props: { loop: Loop; scheduled: boolean }): ReactElement {
  const { glyph, color } = props.scheduled ? SCHEDULED_GLYPH : STATUS_GLYPH[props.loop.status];
  return h(Text, { color, dimColor: props.loop.archived }, glyph);
}

function rowText(row: SidebarRow, autoruns: Record<string, string>): ReactElement {
  switch (row.kind) {
    case 'heading':
      return h(Text, { bold: true, color: 'blue' }, row.text);
    case 'approval':
      return h(
        Text,
        null,
        '  ',
        h(Text, { color: STATUS_GLYPH.waiting.color }, STATUS_GLYPH.waiting.glyph),
        ` ${safe(row.item.loop_name)} · ${safe(row.item.node)} `,
        h(Text, { dimColor: true }, time(row.item.waiting_since, 'minute')),
      );
    case 'project':
      return h(Text, { bold: true }, safe(row.workdir));
    case 'loop':
      return h(
        Text,
        { dimColor: row.loop.archived },
        '  ',
        h(Glyph, { loop: row.loop, scheduled: row.loop.id in autoruns }),
        ` ${safe(row.loop.name)}`,
      );
    case 'spec':
      return h(Text, null, `  ${safe(row.spec.name)}`);
    case 'blueprint':
      return h(Text, null, `  ${safe(row.blueprint.name)} `, h(Text, { dimColor: true }, row.blueprint.builtin ? 'builtin' : 'custom'));
  }
}

/** The rows that fit in `height`, scrolled so the cursor is in view; `autoruns` holds the loops with a pending autorun. */
export function SidebarView(props: {
  rows: SidebarRow[];
  autoruns: Record<string, string>;
  cursor: string | null;
  focused: boolean;
  height: number;
}): ReactElement {
  const { rows, autoruns, cursor, focused, height } = props;
  const at = Math.max(
    0,
    rows.findIndex((row) => row.key === cursor),
  );
  const start = Math.min(Math.max(0, at - Math.floor(height / 2)), Math.max(0, rows.length - height));
  return h(
    Box,
    { flexDirection: 'column' },
    ...rows.slice(start, start + height).map((row) =>
      h(
        Box,
        { key: row.key },
        // A Text shrinks as a Box does: the marker must not, or the truncated text gets its column too and overflows the border.
        h(
          Box,
          { flexShrink: 0 },
          h(Text, { inverse: row.key === cursor && focused, bold: row.key === cursor }, row.key === cursor ? '›' : ' '),
        ),
        h(Box, { flexShrink: 1 }, h(Text, { wrap: 'truncate' }, rowText(row, autoruns))),
      ),
    ),
  );
}

/** `06-01 12:34:56`, or to the minute. */
function time(iso: string, to: 'second' | 'minute' = 'second'): string {
  return iso.slice(5, to === 'second' ? 19 : 16).replace('T', ' ');
}

/** A loop: its live graph (the selected vertex or edge marked), its specs with status, and its runs newest first (the selected one marked). */
export function LoopPane(props: {
  loop: Loop;
  autorunAt: string | null;
  picture: LoopPicture | null;
  details: LoopDetails | null;
  current: string | null;
  selectedEdge: EdgeView | null;
  selectedRun: string | null;
  expanded: boolean;
  now: number;
}): ReactElement {
  const { loop, autorunAt, picture, details, current, selectedEdge, selectedRun, expanded, now } = props;
  const { glyph, color } = STATUS_GLYPH[picture ? (picture.status as Loop['status']) : loop.status] ?? STATUS_GLYPH.pending;
  const spec = picture?.spec ? `spec ${safe(picture.spec.name)}` : 'no spec running';
  const next = picture?.upcoming_specs.length ? `  ·  next: ${picture.upcoming_specs.map(safe).join(', ')}` : '';
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Text,
      null,
      h(Text, { color }, glyph),
      ' ',
      h(Text, { bold: true }, safe(loop.name)),
      ` (${loop.id})  `,
      h(Text, { color: 'cyan' }, picture?.status ?? loop.status),
      loop.archived ? h(Text, { dimColor: true }, '  archived') : null,
      autorunAt ? h(Text, { color: SCHEDULED_GLYPH.color }, `  ${SCHEDULED_GLYPH.glyph} autorun at ${autorunAt}`) : null,
    ),
    h(Text, { dimColor: true }, safe(loop.workdir)),
    h(Text, null, `${spec}${next}`),
    h(
      Box,
      null,
      h(
        Box,
        { flexDirection: 'column', flexGrow: 1 },
        picture ? h(LoopGraph, { picture, current, selectedEdge, expanded, now }) : h(Text, null, 'Reading the loop…'),
      ),
      h(
        Box,
        { flexDirection: 'column', width: 44, marginLeft: 1 },
        h(Text, { bold: true }, 'Specs'),
        ...(details?.specs.length ? details.specs : []).map((s) =>
          h(Text, { key: s.id, wrap: 'truncate' }, `  ${s.status.padEnd(10)} ${safe(s.name)}`),
        ),
        details && !details.specs.length ? h(Text, { dimColor: true }, '  none') : null,
        h(Text, { bold: true }, 'Runs (newest first; Enter shows the output)'),
        ...(details?.runs ?? []).map((run) =>
          h(
            Text,
            { key: run.run_id, wrap: 'truncate', inverse: run.run_id === selectedRun },
            `  ${time(run.started_at)} `,
            h(
              Text,
              { color: STATE_COLOR[run.outcome ?? ''] ?? (run.status === 'running' ? 'yellow' : undefined) },
              (run.outcome ?? run.status).padEnd(8),
            ),
            ` ${safe(run.node)} r${run.round}`,
          ),
        ),
        details && !details.runs.length ? h(Text, { dimColor: true }, '  no runs yet') : null,
        details?.olderRuns ? h(Text, { dimColor: true }, '  m lists older runs') : null,
      ),
    ),
  );
}

/** A waiting approval: its loop, spec, round and since when; opened (Enter), its message and the keys that decide it. */
export function ApprovalPane(props: { item: InboxItem; opened: boolean }): ReactElement {
  const { item, opened } = props;
  const deadline = item.deadline ? ` · decides by itself at ${item.deadline}` : '';
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Text,
      null,
      h(Text, { color: STATUS_GLYPH.waiting.color }, STATUS_GLYPH.waiting.glyph),
      ' approval ',
      h(Text, { bold: true }, safe(item.node)),
      ` of loop ${safe(item.loop_name)} (${item.loop_id})`,
    ),
    h(Text, { dimColor: true }, safe(`${item.workdir}${item.host ? ` on ${item.host}` : ''}`)),
    h(Text, null, `spec ${safe(item.spec_name ?? '-')} · round ${item.round} · waiting since ${item.waiting_since}${deadline}`),
    opened
      ? h(
          Box,
          { flexDirection: 'column' },
          h(Box, { borderStyle: 'round', paddingX: 1 }, h(Text, null, terminalSafe(item.message) || '(empty)')),
          h(Text, { color: 'cyan' }, 'y approve · n reject (asks for the comment the next node is told) · any other key goes back'),
        )
      : h(Text, { dimColor: true }, 'Enter shows its message, to approve (y) or reject (n) it'),
  );
}

/** A titled text: a spec's content, a blueprint's config, a run's output. */
export function TextPane(props: { title: string; lines: string[]; text: string }): ReactElement {
  return h(
    Box,
    { flexDirection: 'column' },
    h(Text, { bold: true }, safe(props.title)),
    ...props.lines.map((line, i) => h(Text, { key: i, dimColor: true }, safe(line))),
    h(Text, null, terminalSafe(props.text) || '(empty)'),
  );
}

/** The editor's refusal: every problem next to its field path, and the two ways on. */
export function RefusalPane(props: { label: string; issues: Issue[] }): ReactElement {
  return h(
    Box,
    { flexDirection: 'column' },
    h(Text, { color: 'red', bold: true }, `The config of ${safe(props.label)} was refused; nothing was changed:`),
    ...props.issues.map((issue, i) =>
      h(Text, { key: i }, '  ', h(Text, { color: 'yellow' }, safe(issue.field)), `: ${safe(issue.message)}`),
    ),
    h(Text, { dimColor: true }, 'i edit again (your text)  ·  Esc abandon'),
  );
}

export function HelpPane(): ReactElement {
  return h(
    Box,
    { flexDirection: 'column' },
    h(Text, { bold: true }, 'Keys (any key closes this list)'),
    ...KEYS.map(([keys, what]) => h(Text, { key: keys }, `  ${keys.padEnd(12)} ${what}`)),
  );
}
