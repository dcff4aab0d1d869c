// Which loop a report is about, as every per-loop answer of the services names it.
import type { Loop } from '../domain/loop';

export interface LoopIdentity {
  loop_id: string;
  name: string;
  workdir: string;
  /** The host the workdir is on, whose workers run the nodes; null when any worker does. */
  host: string | null;
  status: Loop['status'];
  archived: boolean;
}

export const loopIdentity = (loop: Loop): LoopIdentity => ({
  loop_id: loop.id,
  name: loop.name,
  workdir: loop.workdir,
  host: loop.host,
  status: loop.status,
  archived: loop.archived,
});
