// The no-progress watchdog of loops with max_stalled_rounds: each round's end, told by the tree it
// left and the failure it ended on, against the round before. Rounds that end alike in a row make a
// stall; a stall as long as the head's limit blocks the loop with no_progress.
import type { FailureKind } from '../domain/node-run';

/** The failure kind a no-progress blocker begins with, and the notification it sends. */
export const NO_PROGRESS = 'no_progress' satisfies FailureKind;

/** What the watchdog reads of a round's end, on the workdir's host. */
export interface RoundFingerprint {
  /** HEAD and the uncommitted content of the workdir, hashed; null when it could not be read (not a git repository). */
  tree: string | null;
  /** A hash of the failing node's whole output. */
  output: string;
  /** The first line of that output, redacted, for the blocker to quote. */
  firstLine: string;
}

/** A round's end as the watchdog compares it: its fingerprint and the node that failed in it. */
export interface RoundEnd extends RoundFingerprint {
  node: string;
}

/** The rounds in a row (the last one counted) that ended as `last` did. */
export interface Stall {
  rounds: number;
  last: RoundEnd;
}

/** Stalls per loop head, a plain object as it travels in resume points; a head absent has none. */
export type Stalls = Record<string, Stall>;

/** Whether `end` repeats `before`: the same known tree, the same node failing with the same output. */
function repeats(before: RoundEnd, end: RoundEnd): boolean {
  return end.tree !== null && end.tree === before.tree && end.node === before.node && end.output === before.output;
}

/** The stalls once a round of `head`'s loop ended as `end` says: one round more when it repeats the one before, else a new count. */
export function recordRoundEnd(stalls: Stalls, head: string, end: RoundEnd): Stalls {
  const before = Object.hasOwn(stalls, head) ? stalls[head] : undefined;
  const rounds = before && repeats(before.last, end) ? before.rounds + 1 : 1;
  return { ...stalls, [head]: { rounds, last: end } };
}

/** The stalls with `head`'s count ended: a round that did not end on a failure, or a continue after a block. */
export function clearStall(stalls: Stalls, head: string): Stalls {
  if (!Object.hasOwn(stalls, head)) return stalls;
  const rest = { ...stalls };
  delete rest[head];
  return rest;
}

/** The stall of `head`'s loop once it reached `limit` rounds (null before): what the loop blocks on. */
export function reachedLimit(stalls: Stalls, head: string, limit: number): Stall | null {
  const stall = Object.hasOwn(stalls, head) ? stalls[head] : undefined;
  return stall && stall.rounds >= limit ? stall : null;
}

/** The blocker: how many rounds, the node, the first line of the output it repeated, and what to do. */
export function noProgressReason(head: string, stall: Stall): string {
  const { rounds, last } = stall;
  const line = last.firstLine ? `: ${last.firstLine}` : ' (no output)';
  return (
    `${NO_PROGRESS}: ${rounds} rounds in a row of the loop headed by '${head}' ended with the workdir unchanged and ` +
    `${last.node} failing with the same output${line}. Change what the loop works with (the prompt, the check, the workdir), ` +
    'then `canopy loop continue` (the count starts again).'
  );
}

/** The first line of `output` that holds more than spaces, trimmed and cut short. */
export function firstLineOf(output: string, limit = 200): string {
  const line = output
    .split('\n')
    .map((text) => text.trim())
    .find((text) => text.length > 0);
  if (!line) return '';
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}
