// How a finished process becomes a node outcome: exit codes, timeouts, self-reports and commit rights.
import type { FailureKind } from '../domain/node-run';

export interface Verdict {
  outcome: 'pass' | 'fail';
  failureKind: FailureKind | null;
  reason: string | null;
}

export interface ProcessEnd {
  exitCode: number | null;
  timedOut: boolean;
  spawnError: string | null;
  stdout: string;
  /** The limit that killed it, in minutes, when it timed out. */
  limitMinutes: number;
  /** The kill came from the ensemble's straggler limit rather than the node's own timeout. */
  straggler: boolean;
}

export const PASS: Verdict = { outcome: 'pass', failureKind: null, reason: null };

export function checkVerdict(end: ProcessEnd): Verdict {
  return processFailure(end) ?? (end.exitCode === 0 ? PASS : fail('exit_code', `Command exited with code ${end.exitCode}.`));
}

export interface AgentReport {
  status: 'pass' | 'fail';
  output: string | null;
}

/**
 * Timeouts and spawn errors fail whatever was reported. Otherwise an explicit report wins; without
 * one, exit 0 with output passes unless the node requires a report.
 */
export function agentVerdict(end: ProcessEnd, report: AgentReport | null, requireReport: boolean): Verdict {
  const failure = processFailure(end);
  if (failure) return failure;
  if (report) {
    return report.status === 'pass'
      ? PASS
      : fail('reported_fail', report.output ? `Agent reported fail: ${firstLine(report.output)}` : 'Agent reported fail.');
  }
  if (end.exitCode !== 0) return fail('exit_code', `Agent exited with code ${end.exitCode}.`);
  if (requireReport) {
    return fail('no_report', 'Agent exited 0 without calling loop_complete_node, and this node has require_report: true.');
  }
  if (!end.stdout.trim()) return fail('no_output', 'Agent exited 0 but produced no output.');
  return PASS;
}

/** Judges a HEAD move: only nodes with commit rights may commit, and only while some node has them. */
export function headMoveVerdict(input: { subject: string; hasCommitRights: boolean; enforced: boolean; before: string; after: string }): {
  violation: Verdict | null;
  committedHead: string | null;
} {
  const moved = input.before !== input.after && input.after !== '';
  if (!moved) return { violation: null, committedHead: null };
  if (input.hasCommitRights) return { violation: null, committedHead: input.after };
  if (!input.enforced) return { violation: null, committedHead: null };
  return {
    violation: fail(
      'commit_rights',
      `${input.subject} committed but has no commit rights: HEAD moved ${input.before || '(none)'} -> ${input.after}`,
    ),
    committedHead: null,
  };
}

function processFailure(end: ProcessEnd): Verdict | null {
  if (end.spawnError) return fail('spawn_error', `Could not start the process: ${end.spawnError}`);
  if (end.timedOut && end.straggler)
    return fail('straggler', `Ensemble member still running after straggler_timeout_minutes (${end.limitMinutes}); killed.`);
  if (end.timedOut) return fail('timeout', `Killed after timeout_minutes (${end.limitMinutes}).`);
  return null;
}

function fail(failureKind: FailureKind, reason: string): Verdict {
  return { outcome: 'fail', failureKind, reason };
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0].slice(0, 200);
}
