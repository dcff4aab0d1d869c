// The quorum of an ensemble: one document with a section per member, in member order, and its verdict.
import type { NodeRun } from '../domain/node-run';
import { outputText } from '../graph/feedback';
import type { Verdict } from '../graph/verdicts';
import { getNode } from '../store/graph-repository';
import type { ActivityDeps } from './deps';
import { memberLabel } from '../graph/ensemble-names';

export async function buildQuorum(
  deps: ActivityDeps,
  members: NodeRun[],
  minPass: number,
): Promise<{ document: string; verdict: Verdict }> {
  const sections = await Promise.all(
    members.map(async (run) => {
      const node = run.node_id ? await getNode(deps.db, run.node_id) : undefined;
      const label = labelOf(node?.config, run.node_name);
      const status = run.outcome === 'pass' ? 'pass' : 'fail';
      const why = run.reason && status === 'fail' ? `\n_${run.reason}_` : '';
      return `## ${label} [${status}]${why}\n\n${outputText(run).trim()}\n`;
    }),
  );
  const passes = members.filter((run) => run.outcome === 'pass').length;
  const verdict: Verdict =
    passes >= minPass
      ? { outcome: 'pass', failureKind: null, reason: `${passes} of ${members.length} members passed (min_pass ${minPass}).` }
      : { outcome: 'fail', failureKind: 'quorum', reason: `Only ${passes} of ${members.length} members passed; min_pass is ${minPass}.` };
  return { document: sections.join('\n'), verdict };
}

function labelOf(config: Record<string, unknown> | undefined, fallback: string): string {
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return memberLabel({ platform: text(config?.platform), model: text(config?.model) }, fallback);
}
