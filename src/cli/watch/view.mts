// The live terminal view of one loop, drawn with Ink: its graph (loop-graph.mts), the specs, the
// approval it waits at with the commands that decide it, and keys to steer the loop. ESM because Ink
// is; the CLI loads it only for a TTY.
import { Box, render, Text, useApp, useInput } from 'ink';
import { createElement as h, useEffect, useState, type ReactElement } from 'react';
import type { InboxItem } from '../../client/approvals-service.js';
import type { LoopPicture } from '../../client/loop-picture-service.js';
import { terminalSafe } from '../output.js';
import { approvalLines } from './approval-lines.js';
import { LoopGraph } from './loop-graph.mjs';

export interface WatchActions {
  /** Starts following; calls back with every new picture, and the approvals the loop waits at, until stopped. */
  follow(onPicture: (picture: LoopPicture, approvals: InboxItem[]) => void): { stop(): void };
  pause(): Promise<string>;
  continueLoop(strategy: 'retry' | 'skip'): Promise<string>;
  /** The stored output of a node run, redacted. */
  runOutput(runId: string): Promise<string>;
}

function WatchApp(props: { actions: WatchActions }): ReactElement {
  const { actions } = props;
  const { exit } = useApp();
  const [picture, setPicture] = useState<LoopPicture | null>(null);
  const [approvals, setApprovals] = useState<InboxItem[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [followRunning, setFollowRunning] = useState(true);
  const [expanded, setExpanded] = useState(false);
  const [message, setMessage] = useState('');
  const [output, setOutput] = useState<{ node: string; text: string } | null>(null);
  const [now, setNow] = useState(Date.now());

  useEffect(() => {
    const following = actions.follow((next, waitingAt) => {
      setPicture(next);
      setApprovals(waitingAt);
      setNow(Date.now());
    });
    return () => following.stop();
  }, [actions]);

  const current = followRunning ? (picture?.running ?? selected) : selected;
  const say = (work: Promise<string>) => {
    work.then(setMessage, (error: unknown) => setMessage(`refused: ${error instanceof Error ? error.message : String(error)}`));
  };

  useInput((input, key) => {
    if (output) return setOutput(null);
    const names = picture?.vertices.map((v) => v.name) ?? [];
    const at = current ? names.indexOf(current) : -1;
    if (input === 'q' || key.escape) return exit();
    if (key.upArrow || key.downArrow) {
      const next = names[Math.min(names.length - 1, Math.max(0, at + (key.upArrow ? -1 : 1)))];
      setSelected(next ?? null);
      setFollowRunning(false);
      return;
    }
    if (input === 'f') return setFollowRunning(true);
    if (input === 'e') return setExpanded((was) => !was);
    if (input === 'p') return say(actions.pause());
    if (input === 'c') return say(actions.continueLoop('retry'));
    if (input === 's') return say(actions.continueLoop('skip'));
    if (input === 'o') {
      const vertex = picture?.vertices.find((v) => v.name === current);
      if (!vertex?.last_run_id) return setMessage(`no run of ${current ?? 'this node'} yet`);
      const node = vertex.name;
      actions.runOutput(vertex.last_run_id).then(
        (text) => setOutput({ node, text }),
        (error: unknown) => setMessage(String(error)),
      );
    }
  });

  if (!picture) return h(Text, null, 'Reading the loop…');
  if (output) {
    return h(
      Box,
      { flexDirection: 'column' },
      h(Text, { bold: true }, `last run output of ${output.node} (any key to go back)`),
      h(Text, null, terminalSafe(output.text) || '(no output)'),
    );
  }
  const specs = picture.spec ? `spec ${picture.spec.name}` : 'no spec running';
  const next = picture.upcoming_specs.length ? `  ·  next: ${picture.upcoming_specs.join(', ')}` : '';
  return h(
    Box,
    { flexDirection: 'column' },
    h(
      Text,
      null,
      h(Text, { bold: true }, `canopy · ${picture.name}`),
      ` (${picture.loop_id})  `,
      h(Text, { color: 'cyan' }, picture.status),
    ),
    h(Text, null, `${specs}${next}`),
    h(LoopGraph, { picture, current, expanded, now }),
    ...approvals.flatMap((item) =>
      approvalLines(item).map((line, i) =>
        h(Text, { key: `${item.node_run_id}:${i}`, color: i === 0 ? 'magenta' : undefined }, terminalSafe(line)),
      ),
    ),
    message ? h(Text, { color: 'magenta' }, message) : null,
    h(Text, { dimColor: true }, '↑↓ select  f follow  p pause  c continue  s skip  e expand  o output  q quit'),
  );
}

/** Draws the view until the person quits. */
export async function runWatchView(actions: WatchActions): Promise<void> {
  const instance = render(h(WatchApp, { actions }));
  await instance.waitUntilExit();
}
