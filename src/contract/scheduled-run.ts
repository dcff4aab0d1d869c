// The input of the workflow a loop's recurring Schedule starts at each firing.
export interface ScheduledRunInput {
  loopId: string;
  /** The queue to drain, or null for the loop's own specs. */
  queueId: string | null;
}
