// Taking an agent's report so that it is never lost while its node runs: kept in the run directory
// first (the node's judge reads it there when the process ends, whichever worker is up then), then
// delivered to the worker, tried again with a backoff while the worker cannot be reached.
import { CanopyError } from '../domain/errors';
import { keepBlocker, keepReport, readKeptBlocker, readKeptReport, sameReport } from '../process/run-reports';
import { callRunTool, refusedForGood, type RunCallback, type RunTool } from './run-callback';

export type RunReport =
  { tool: 'loop_complete_node'; status: 'pass' | 'fail'; output: string | null } | { tool: 'loop_report_blocker'; reason: string };

export type Delivery =
  | { delivered: true; result: unknown }
  /** Not delivered within the time given: kept in `keptIn` (or superseded there by a newer report). */
  | { delivered: false; keptIn: string; why: string };

/** How long a report is offered to the worker before the agent is told it is kept: long enough for a worker to restart. */
export const DELIVERY_WINDOW_MS = 60_000;

const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5_000;

/** Writes the report into the run directory, replacing an earlier one of its kind. */
export function keep(callback: RunCallback, report: RunReport): void {
  if (!callback.runDir) return;
  if (report.tool === 'loop_complete_node') keepReport(callback.runDir, { status: report.status, output: report.output });
  else keepBlocker(callback.runDir, { reason: report.reason, delivered: false });
}

/**
 * Offers the report to the worker until `deadline`. A refusal (the run ended, the token is not the run's)
 * is final and thrown; an unreachable worker is tried again. Without a run directory nothing is kept,
 * so a report still undelivered at the deadline is an error.
 */
export async function deliver(
  callback: RunCallback,
  report: RunReport,
  deadline: number,
  onFirstMiss: (why: string) => void = () => undefined,
): Promise<Delivery> {
  const { tool, args } = toolCall(report);
  for (let pause = FIRST_PAUSE_MS, tries = 1; ; pause = Math.min(pause * 2, LONGEST_PAUSE_MS), tries++) {
    const overtaken = overtakenBy(callback, report);
    if (overtaken) return { delivered: false, keptIn: callback.runDir!, why: overtaken };
    let failure: unknown;
    try {
      return { delivered: true, result: await callRunTool(callback, tool, args) };
    } catch (error) {
      if (refusedForGood(error)) throw error;
      failure = error;
    }
    const why = `the worker at ${callback.url} did not take it (${(failure as Error).message})`;
    if (tries === 1) onFirstMiss(why);
    if (Date.now() + pause >= deadline) {
      if (!callback.runDir)
        throw new CanopyError('refused', `The report was not delivered: ${why}; without CANOPY_RUN_DIR it is not kept.`);
      return { delivered: false, keptIn: callback.runDir, why };
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** Keeps the report, then delivers it within `windowMs`. */
export async function takeReport(callback: RunCallback, report: RunReport, onFirstMiss?: (why: string) => void): Promise<Delivery> {
  keep(callback, report);
  return deliver(callback, report, Date.now() + DELIVERY_WINDOW_MS, onFirstMiss);
}

/** What an agent is told while its report waits for the worker. */
export function retryNotice(callback: RunCallback, why: string): string {
  const kept = callback.runDir ? `it is kept in ${callback.runDir} and ` : '';
  return `canopy: ${why}; ${kept}is offered again for up to ${DELIVERY_WINDOW_MS / 1000} s.`;
}

/** Not delivered in time, yet not lost: the node's judge reads it from the run directory. */
export interface KeptReportResult {
  delivered: false;
  kept_in: string;
  message: string;
}

/** What the worker answered (and `delivered: true`), or what the agent is told of a report kept for its node's end. */
export type AgentReportResult<T> = (T & { delivered: true }) | KeptReportResult;

export function agentReportResult<T extends object>(delivery: Delivery): AgentReportResult<T> {
  if (delivery.delivered) return { ...(delivery.result as T), delivered: true };
  const message = `The report is kept in ${delivery.keptIn} and counts when this node's process ends: ${delivery.why}.`;
  return { delivered: false, kept_in: delivery.keptIn, message };
}

function toolCall(report: RunReport): { tool: RunTool; args: Record<string, unknown> } {
  if (report.tool === 'loop_report_blocker') return { tool: report.tool, args: { reason: report.reason } };
  return { tool: report.tool, args: { status: report.status, ...(report.output === null ? {} : { output: report.output }) } };
}

/**
 * Why the report needs no further try, or null while it is the run's newest and untold: a newer one kept
 * in its place is delivered by whoever took it, and a blocker the worker marked delivered was taken.
 */
function overtakenBy(callback: RunCallback, report: RunReport): string | null {
  if (!callback.runDir) return null;
  if (report.tool === 'loop_complete_node') {
    const kept = readKeptReport(callback.runDir);
    return sameReport(kept, { status: report.status, output: report.output }) ? null : 'a newer report replaced it';
  }
  const kept = readKeptBlocker(callback.runDir);
  if (kept?.reason !== report.reason) return 'a newer blocker replaced it';
  return kept.delivered ? 'the worker took it' : null;
}
