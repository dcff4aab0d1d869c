// How a finished process becomes a node outcome: exit codes, timeouts, self-reports and commit rights.
import type { FailureKind } from '../domain/node-run';
import { EARLY_CRASH_MS } from './infra-failures';

export interface Verdict {
  outcome: 'pass' | 'fail';
  failureKind: FailureKind | null;
  reason: string | null;
}

export interface ProcessEnd {
  exitCode: number | null;
  /** The signal that ended it; one canopy sent comes with timedOut or cancelled. */
  signal: string | null;
  timedOut: boolean;
  cancelled: boolean;
  spawnError: string | null;
  /** Why the end of a process that started is unknown. */
  lost: string | null;
  /** Where it found no space left: the file system its output goes to was full when it failed. */
  noSpace: string | null;
  stdout: string;
  /** The limit that killed it, in minutes, when it timed out. */
  limitMinutes: number;
  /** The kill came from the ensemble's straggler limit rather than the node's own timeout. */
  straggler: boolean;
  /** Set when canopy killed it for printing nothing for its idle limit. */
  idle: { limitMinutes: number; lastLine: string | null } | null;
}

/** An agent's end also says how long it ran, which tells an early crash from a failed attempt at the work. */
export interface AgentEnd extends ProcessEnd {
  elapsedMs: number;
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
 * Timeouts, spawn errors and outside signals fail whatever was reported. Otherwise an explicit
 * report wins; without one, exit 0 with output passes unless the node requires a report.
 */
export function agentVerdict(end: AgentEnd, report: AgentReport | null, requireReport: boolean): Verdict {
  const failure = processFailure(end);
  if (failure) return failure;
  if (report) {
    return report.status === 'pass'
      ? PASS
      : fail('reported_fail', report.output ? `Agent reported fail: ${firstLine(report.output)}` : 'Agent reported fail.');
  }
  if (end.exitCode !== 0) return earlyCrash(end) ?? fail('exit_code', `Agent exited with code ${end.exitCode}.`);
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

/** What a person does about a full disk: running the node again on it would only fill it again. */
export const DISK_FULL_FIX = 'Free space there (or make the command print less), then continue the loop.';

/** Spawn errors that come back however often the spawn is tried: the argv itself is refused. */
const LASTING_SPAWN_ERRORS = /null bytes|E2BIG|ENAMETOOLONG/;

function processFailure(end: ProcessEnd): Verdict | null {
  if (end.spawnError) {
    const kind = LASTING_SPAWN_ERRORS.test(end.spawnError) ? 'spawn_error' : 'infra_spawn';
    return fail(kind, `Could not start the process: ${end.spawnError}`);
  }
  // Before `lost`: a full disk is also why the supervisor could not record the exit status.
  if (end.noSpace) return fail('disk_full', `No space left on device (ENOSPC): ${end.noSpace}. ${DISK_FULL_FIX}`);
  if (end.lost) return fail('infra_lost', `The process was lost while it ran: ${end.lost}.`);
  if (end.timedOut && end.straggler)
    return fail('straggler', `Ensemble member still running after straggler_timeout_minutes (${end.limitMinutes}); killed.`);
  if (end.timedOut) return fail('timeout', `Killed after timeout_minutes (${end.limitMinutes}).`);
  if (end.idle) {
    const last = end.idle.lastLine === null ? 'It printed nothing at all.' : `Its last line: ${end.idle.lastLine}`;
    return fail('idle', `Printed nothing for idle_timeout_minutes (${end.idle.limitMinutes}); killed. ${last}`);
  }
  if (end.signal && !end.cancelled) return fail('infra_signal', `Killed by ${end.signal}, which canopy did not send.`);
  return null;
}

/** A non-zero exit within the first minute that left no output at all (the report was looked at before). */
function earlyCrash(end: AgentEnd): Verdict | null {
  if (end.exitCode === null || end.elapsedMs >= EARLY_CRASH_MS || end.stdout.trim()) return null;
  return fail('infra_crash', `Agent exited with code ${end.exitCode} after ${Math.round(end.elapsedMs / 1000)} s with no output.`);
}

function fail(failureKind: FailureKind, reason: string): Verdict {
  return { outcome: 'fail', failureKind, reason };
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0].slice(0, 200);
}
