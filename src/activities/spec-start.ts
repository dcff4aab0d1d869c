// What a spec starts from: the workdir's HEAD and uncommitted paths, and whether a failed run's
// leftovers stop the start; and opening the next spec, its claim with that start and its graph, in
// one trip to the workdir's host.
import { ApplicationFailure } from '@temporalio/activity';
import { dirtyStartRefusal, type LeftByFailedRun } from '../graph/dirty-start';
import { getLoop } from '../store/loops-repository';
import { latestLoopRun } from '../store/loop-runs-repository';
import { latestDirtyPathsRecord } from '../store/node-runs-repository';
import { getSpec } from '../store/specs-repository';
import type { OpenedSpec, OpenNextSpecInput, SpecStart, SpecStartInput } from '../contract';
import { dirtyPaths, readHead } from '../git/workdir';
import { markClaimed, nextClaim, specTopology } from './bookkeeping';
import type { ActivityDeps } from './deps';

export function specStartActivities(deps: ActivityDeps) {
  const { db } = deps;

  /**
   * The tree the loop's previous run left, when that run failed (or was stopped): the paths its
   * last agent or check found uncommitted. A later node run of this run supersedes it, since it
   * looked at the tree after.
   */
  async function leftByFailedRun(loopId: string, loopRunId: string): Promise<LeftByFailedRun | null> {
    const previous = await latestLoopRun(db, loopId, loopRunId);
    if (previous?.status !== 'failed') return null;
    const record = await latestDirtyPathsRecord(db, loopId, previous.started_at);
    if (!record?.dirty_paths?.length) return null;
    const spec = record.spec_id ? await getSpec(db, record.spec_id) : undefined;
    return { specName: spec?.name ?? record.spec_id ?? '(deleted)', paths: record.dirty_paths };
  }

  async function inspectSpecStart(input: SpecStartInput): Promise<SpecStart> {
    const [head, dirty] = await Promise.all([readHead(input.workdir), dirtyPaths(input.workdir)]);
    if (!dirty?.length) return { head, dirtyPaths: dirty ?? [], refusal: null };
    const [loop, spec] = await Promise.all([getLoop(db, input.loopId), getSpec(db, input.specId)]);
    if (!loop) throw ApplicationFailure.nonRetryable(`Loop ${input.loopId} no longer exists.`, 'missing');
    const refusal = dirtyStartRefusal({
      loopId: loop.id,
      workdir: input.workdir,
      specName: spec?.name ?? input.specId,
      dirty,
      left: await leftByFailedRun(loop.id, input.loopRunId),
      allowDirtyStart: loop.settings.allow_dirty_start === true,
    });
    return { head, dirtyPaths: dirty, refusal };
  }

  return {
    inspectSpecStart,

    /** The claim is written last: a read that fails before it leaves the spec for the retry to claim. */
    async openNextSpec(input: OpenNextSpecInput): Promise<OpenedSpec | null> {
      const next = await nextClaim(db, input);
      if (!next?.taken) return next?.claimed ?? null;
      const { claimed } = next;
      const { loopId, loopRunId, workdir } = input;
      // A spec resumed where a failed run left it keeps the start that run recorded.
      const fresh = !input.resumeSpecId || claimed.startsOver === true;
      const start = fresh ? await inspectSpecStart({ loopId, loopRunId, specId: claimed.specId, workdir }) : undefined;
      const graph = await specTopology(db, loopId, claimed.specId);
      await markClaimed(db, claimed);
      return { ...claimed, ...(start && { start }), graph };
    },
  };
}
