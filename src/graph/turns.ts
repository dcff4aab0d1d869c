// Ensembles whose members take turns. A cascade runs its members one at a time, starting with whose
// turn it is and going on in member order (around to the first) until one passes; a round_robin runs
// only the member whose turn it is. The member that passed keeps the turn; after a round_robin's
// failure the next member takes it over for the rest of the spec.
import type { EnsembleKind } from '../domain/ensemble';

export type TurnKind = Exclude<EnsembleKind, 'parallel'>;

/** Whose turn an ensemble's next entry starts with, and how it came to be theirs. */
export interface Turn {
  member: number;
  /** start: the spec's first entry; pass: the member passed the entry before; fail: the member before failed it. */
  since: 'start' | 'pass' | 'fail';
}

/** Whose turn an entry starts with; the first member's on the spec's first entry, or when the members were cut below the one it was. */
export function currentTurn(turn: Turn | undefined, memberCount: number): Turn {
  return turn && turn.member < memberCount ? turn : { member: 0, since: 'start' };
}

/** The members (by index) one entry may run, in the order it runs them; it stops at the first that passes. */
export function turnOrder(kind: TurnKind, memberCount: number, turn: Turn): number[] {
  if (kind === 'round_robin') return [turn.member];
  return Array.from({ length: memberCount }, (_, offset) => (turn.member + offset) % memberCount);
}

/** Whose turn the next entry starts with, given the members that ran this entry (in order) and which of them passed. */
export function nextTurn(kind: TurnKind, memberCount: number, turn: Turn, passed: number | null): Turn {
  if (passed !== null) return { member: passed, since: 'pass' };
  // A cascade where every member failed starts again where this one started.
  if (kind === 'cascade') return turn;
  return { member: (turn.member + 1) % memberCount, since: 'fail' };
}

/** The quorum document's first lines: which members ran, in what order and why, and which did not. */
export function turnsAccount(kind: TurnKind, names: string[], turn: Turn, ran: { member: number; passed: boolean }[]): string {
  const name = (member: number) => names[member];
  const first = name(turn.member);
  const why = {
    start: `${first} first, as the first member`,
    pass: `${first} first, as it passed the ensemble's last entry`,
    fail: `${first} first, as the member before it failed the ensemble's last entry`,
  }[turn.since];
  const outcomes = ran.map(({ member, passed }) => `${name(member)} [${passed ? 'pass' : 'fail'}]`).join(', ');
  const lines = [`${kind === 'cascade' ? 'Cascade' : 'Round robin'}: ${why}. Ran ${outcomes}.`];
  const passer = ran.find((entry) => entry.passed);
  const idle = names.filter((_, member) => !ran.some((entry) => entry.member === member));
  if (idle.length) {
    const because = kind === 'round_robin' ? 'a round_robin runs one member per entry' : `${name(passer!.member)} passed before their turn`;
    lines.push(`Not run: ${idle.join(', ')} (${because}).`);
  }
  return `${lines.join('\n')}\n`;
}
