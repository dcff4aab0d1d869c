// One process-backed node execution (agent or check), as the kind-specific executors see it.
import type { NodeRun } from '../domain/node-run';
import type { Verdict } from '../graph/verdicts';
import type { NodeScene } from './node-scene';

export interface Execution {
  scene: Pick<NodeScene, 'loop' | 'node'>;
  run: NodeRun;
  values: Record<string, string>;
  /** The ensemble's straggler limit for a member, else null. */
  stragglerMinutes: number | null;
  recordInput: (text: string) => Promise<void>;
  recordProcessGroup: (pgid: number) => Promise<void>;
}

export interface ExecutionResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  cancelled: boolean;
  verdict: Verdict;
  unreported: boolean;
}
