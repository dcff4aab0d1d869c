// Rounds of loops keyed by their head: counting, budgets and which nodes a new round makes stale.
import type { Topology } from './topology';

/**
 * Current round per loop head; a head absent from the map is on its first round. A plain object,
 * since it travels as JSON in workflow history and resume points; heads are read with roundAt only,
 * so a node named `__proto__` or `constructor` is a key like any other.
 */
export type Rounds = Record<string, number>;

export function roundAt(rounds: Rounds, head: string): number {
  return Object.hasOwn(rounds, head) ? rounds[head] : 1;
}

export type LoopbackResult =
  | { kind: 'next_round'; rounds: Rounds; round: number; stale: string[] }
  | { kind: 'exhausted'; head: string; budget: number; reason: string };

/** The round a vertex runs in: the highest round of any loop whose body holds it. */
export function roundOf(topology: Topology, rounds: Rounds, vertex: string): number {
  let round = 1;
  for (const [head, body] of Object.entries(topology.bodies)) {
    if (body.includes(vertex)) round = Math.max(round, roundAt(rounds, head));
  }
  return round;
}

/**
 * Following a loopback into `head` starts its next round, unless that round would pass the budget.
 * Loops nested in the body start again from their first round, since the outer round is a fresh attempt.
 */
export function enterLoopback(topology: Topology, rounds: Rounds, head: string): LoopbackResult {
  const budget = topology.budgets[head];
  const round = roundAt(rounds, head) + 1;
  if (round > budget) {
    return {
      kind: 'exhausted',
      head,
      budget,
      reason: `Loop headed by '${head}' reached its budget of ${budget} round${budget === 1 ? '' : 's'} (max_iterations) without passing.`,
    };
  }
  const body = Object.hasOwn(topology.bodies, head) ? topology.bodies[head] : [head];
  const next: Rounds = { ...rounds, [head]: round };
  for (const inner of body) if (inner !== head) delete next[inner];
  return { kind: 'next_round', rounds: next, round, stale: body };
}
