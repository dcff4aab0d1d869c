// The no-progress watchdog's reading of a round's end, on the workdir's host: the tree the round left
// (see git/tree-fingerprint) and the output of the node that failed in it, each as a hash.
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import type { FingerprintRoundInput, LoopActivities } from '../contract';
import { redact } from '../graph/redact';
import { firstLineOf, type RoundFingerprint } from '../graph/stalls';
import { treeFingerprint } from '../git/tree-fingerprint';
import { getNodeRun } from '../store/node-runs-repository';
import type { ActivityDeps } from './deps';

export function roundEndActivities(deps: ActivityDeps): Pick<LoopActivities, 'fingerprintRound'> {
  return {
    async fingerprintRound(input: FingerprintRoundInput): Promise<RoundFingerprint> {
      const run = await getNodeRun(deps.db, input.nodeRunId);
      if (!run) throw ApplicationFailure.nonRetryable(`Node run ${input.nodeRunId} no longer exists.`, 'missing');
      // What the node said, in the order a person reads it: its own report first, then what it printed.
      const output = [run.reported_output ?? '', run.stdout, run.stderr];
      return {
        tree: await treeFingerprint(input.workdir),
        output: createHash('sha256').update(JSON.stringify(output)).digest('hex'),
        firstLine: redact(firstLineOf(output.join('\n'))),
      };
    },
  };
}
