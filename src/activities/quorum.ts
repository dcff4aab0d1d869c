// The quorum of an ensemble: one document with a section per member, in member order, and its verdict.
import type { NodeRun } from '../domain/node-run';
import { outputText } from '../graph/feedback';
import { redact } from '../graph/redact';
import type { Verdict } from '../graph/verdicts';
import { getNode } from '../store/graph-repository';
import type { QuorumMet } from '../contract';
import type { ActivityDeps } from './deps';
import { memberLabel } from '../graph/ensemble-names';

export interface QuorumInputs {
  minPass: number;
  quorumMet?: QuorumMet;
  /** Each isolated member's changes against the starting tree, in member order. */
  diffs?: string[];
  /** Members that took turns: which ran and why. */
  turnsAccount?: string;
}

export async function buildQuorum(
  deps: ActivityDeps,
  members: NodeRun[],
  { minPass, quorumMet, diffs, turnsAccount }: QuorumInputs,
): Promise<{ document: string; verdict: Verdict }> {
  const labelled = await Promise.all(
    members.map(async (run) => {
      const node = run.node_id ? await getNode(deps.db, run.node_id) : undefined;
      return { run, label: labelOf(node?.config, run.node_name) };
    }),
  );
  const sections = labelled.map(({ run, label }, index) => {
    const status = run.outcome === 'pass' ? 'pass' : 'fail';
    const why = run.reason && status === 'fail' ? `\n_${run.reason}_` : '';
    const changes = diffs ? `\n${changesSection(diffs[index] ?? '')}` : '';
    return `## ${label} [${status}]${why}\n\n${outputText(run).trim()}\n${changes}`;
  });
  const cut = labelled.filter(({ run }) => run.failure_kind === 'quorum_met');
  const grace = quorumMet
    ? [
        graceHeader(
          quorumMet,
          minPass,
          cut.map(({ run, label }) => `${label} (${run.node_name})`),
        ),
      ]
    : [];
  const header = turnsAccount ? [turnsAccount, ...grace] : grace;
  const passes = members.filter((run) => run.outcome === 'pass').length;
  const cutShort = cut.length ? `; ${cut.length} cut short once the quorum was met` : '';
  const verdict: Verdict =
    passes >= minPass
      ? {
          outcome: 'pass',
          failureKind: null,
          reason: `${passes} of ${members.length} members passed (min_pass ${minPass})${cutShort}.`,
        }
      : { outcome: 'fail', failureKind: 'quorum', reason: `Only ${passes} of ${members.length} members passed; min_pass is ${minPass}.` };
  return { document: [...header, ...sections].join('\n'), verdict };
}

/** At most this much of each member's diff goes into the document, so eight large proposals do not swamp the next prompt. */
export const MEMBER_DIFF_CHARS = 20_000;

/** A member's diff under its section, cut to MEMBER_DIFF_CHARS and redacted. */
function changesSection(diff: string): string {
  if (!diff.trim()) return '### Its changes\n\nNone: its worktree ends as it started.\n';
  const cut = diff.length > MEMBER_DIFF_CHARS ? `\n[canopy] diff cut at ${MEMBER_DIFF_CHARS} of ${diff.length} characters\n` : '';
  const fence = diff.includes('```') ? '~~~~' : '```';
  return `### Its changes (against the starting tree)\n\n${fence}diff\n${redact(diff.slice(0, MEMBER_DIFF_CHARS)).trimEnd()}\n${fence}\n${cut}`;
}

/** When the quorum was met and who the grace period cut short, above the members' sections. */
function graceHeader(quorumMet: QuorumMet, minPass: number, cut: string[]): string {
  const after = `quorum_grace_minutes ${quorumMet.graceMinutes}`;
  const outcome = cut.length ? `cut short: ${cut.join(', ')}` : 'every other member ended within it';
  return `Quorum met at ${quorumMet.at} (min_pass ${minPass}); ${after}; ${outcome}.\n`;
}

function labelOf(config: Record<string, unknown> | undefined, fallback: string): string {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return memberLabel({ platform: text(config?.platform), model: text(config?.model) }, fallback);
}
