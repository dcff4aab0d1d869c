// What activities need from the process that hosts them.
import type { Kysely } from 'kysely';
import type { Database } from '../store/database';
import type { ScheduledStart, WorkdirWait } from '../contract';
import type { WorkdirScans } from './workdir-scans';

export interface ActivityDeps {
  db: Kysely<Database>;
  /** The canopy home: config.json (agent platforms) lives here. */
  home: string;
  /** The store's URL when it is PostgreSQL; agents get it so their `canopy node …` calls reach the same store. */
  databaseUrl: string | undefined;
  /** This worker's host id (CANOPY_HOST_ID), recorded on every node run it executes. */
  hostId: string;
  /** This worker's run-token MCP endpoint, where the agents it spawns report. */
  mcpUrl: string;
  /** Passed to agents so `canopy node …` calls they make reach the same Temporal server. */
  temporalAddress: string;
  /** Starts or continues a loop as `canopy loop continue` would (wired by the host to the run service); see LoopActivities. */
  resumeLoop(loopId: string, waitForWorkdir?: boolean): Promise<string | WorkdirWait>;
  /** Blocks the loop after a node run, as `loop_report_blocker` would, for a blocker kept while no worker could take it. */
  blockForKeptReport(nodeRunId: string, reason: string): Promise<void>;
  /** Resumes the loop by itself at `at` (ISO-8601), as `loop_schedule_autorun` would. */
  scheduleAutorun(loopId: string, at: string): Promise<void>;
  /** Starts the loop's run (its own specs, or a queue's) as `canopy loop run` would, or says why it does not. */
  startScheduledRun(loopId: string, queueId: string | null, waitForWorkdir?: boolean): Promise<ScheduledStart | WorkdirWait>;
  /** The uncommitted-paths scans still running after their nodes answered, which what touches a workdir next waits for. */
  workdirScans: WorkdirScans;
  /** Starts the delivery workflow of each notification (one already started is left alone). */
  startDeliveries(notificationIds: string[]): Promise<void>;
  /** The page of a workflow in the Temporal UI, when canopy knows where the UI is. */
  runPageUrl(workflowId: string): string | null;
  /** Settles with how a loop run ended (following continue-as-new); rejects when `signal` aborts first. */
  loopRunEnd(run: { workflowId: string; runId: string }, signal: AbortSignal): Promise<string>;
}
