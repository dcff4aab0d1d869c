// Workdir claims: which loop's run holds a workdir, so that one workdir runs one loop at a time.
import { OPEN_RUN_STATUSES, type LoopStatus } from '../domain';
import { now } from './columns';
import type { DatabaseOrTransaction } from './database';

/** A workdir as claims compare it: the host it is on ('' for a loop any worker runs) and its real path. */
export interface WorkdirPlace {
  host: string;
  workdir: string;
}

export type WorkdirClaim = WorkdirPlace & { loop_id: string; loop_run_id: string };

/** The run of another loop that holds a workdir. */
export interface WorkdirHolder extends WorkdirPlace {
  loop_id: string;
  loop_name: string;
  loop_status: LoopStatus;
  loop_run_id: string;
  claimed_at: string;
}

/** How often a claim looks again when another claim changed the workdir's row between its reads. */
const CLAIM_ATTEMPTS = 3;

/**
 * Claims the workdir for the run, or returns the open run of another loop that holds it. The row
 * of a run that has ended, of a loop that shows no open run, or of the same loop, is taken over.
 * Atomic on both dialects: the primary key lets one claim add the row, and a row is taken over
 * only from the holder that was read.
 */
export async function claimWorkdir(db: DatabaseOrTransaction, claim: WorkdirClaim): Promise<WorkdirHolder | undefined> {
  const row = { ...claim, claimed_at: now() };
  for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
    const inserted = await db
      .insertInto('workdir_claims')
      .values(row)
      .onConflict((conflict) => conflict.columns(['host', 'workdir']).doNothing())
      .executeTakeFirst();
    if ((inserted.numInsertedOrUpdatedRows ?? 0n) > 0n) return undefined;
    const holder = await holderOf(db, claim);
    if (!holder) continue;
    if (holder.open && holder.holder.loop_id !== claim.loop_id) return holder.holder;
    const taken = await db
      .updateTable('workdir_claims')
      .set(row)
      .where('host', '=', claim.host)
      .where('workdir', '=', claim.workdir)
      .where('loop_run_id', '=', holder.holder.loop_run_id)
      .executeTakeFirst();
    if (taken.numUpdatedRows > 0n) return undefined;
  }
  throw new Error(`The claim of workdir ${claim.workdir} kept changing under ${CLAIM_ATTEMPTS} attempts to take it; try again.`);
}

/** The open run that holds the workdir, if any. */
export async function workdirHolder(db: DatabaseOrTransaction, place: WorkdirPlace): Promise<WorkdirHolder | undefined> {
  const claim = await holderOf(db, place);
  return claim?.open ? claim.holder : undefined;
}

/** The run whose claim is on the workdir, and whether it is still open: its record is, and its loop shows it. */
async function holderOf(db: DatabaseOrTransaction, place: WorkdirPlace): Promise<{ holder: WorkdirHolder; open: boolean } | undefined> {
  const row = await db
    .selectFrom('workdir_claims as claim')
    .innerJoin('loops as loop', 'loop.id', 'claim.loop_id')
    .innerJoin('loop_runs as run', 'run.id', 'claim.loop_run_id')
    .select([
      'claim.host',
      'claim.workdir',
      'claim.loop_id',
      'claim.loop_run_id',
      'claim.claimed_at',
      'loop.name as loop_name',
      'loop.status as loop_status',
      'run.status as run_status',
    ])
    .where('claim.host', '=', place.host)
    .where('claim.workdir', '=', place.workdir)
    .executeTakeFirst();
  if (!row) return undefined;
  const { run_status, ...holder } = row;
  return { holder, open: run_status === 'running' && OPEN_RUN_STATUSES.includes(holder.loop_status) };
}
