// Run directories left behind: a run removes its own directory once its outcome is known, and when
// the disk refused that, a worker of the same home removes it as it starts. It removes the agent homes
// of deleted loops too, which nothing else does: a loop may be deleted from another host.
import type { Kysely } from 'kysely';
import type { Database } from '../store/database';
import { existingLoopIds } from '../store/loops-repository';
import { endedNodeRunIds } from '../store/node-runs-repository';
import { agentHomeLoopIds, removeAgentHomes, removeRunDirectory, RunDirectoryError, runDirectoryIds } from '../process/run-directory';

/**
 * Removes the directories of node runs that have ended (a running one's process still writes to
 * its directory, or a retry will adopt it from there) and the agent homes of loops the store no
 * longer has. Returns why any could not be removed.
 */
export async function sweepRunDirectories(db: Kysely<Database>, home: string): Promise<string[]> {
  const refused: string[] = [];
  const unlessRefused = <T>(work: () => T, otherwise: T): T => {
    try {
      return work();
    } catch (error) {
      if (!(error instanceof RunDirectoryError)) throw error;
      refused.push(error.message);
      return otherwise;
    }
  };
  const ended = await endedNodeRunIds(
    db,
    unlessRefused(() => runDirectoryIds(home), []),
  );
  for (const id of ended) unlessRefused(() => removeRunDirectory(home, id), undefined);
  const withHomes = unlessRefused(() => agentHomeLoopIds(home), []);
  const kept = new Set(await existingLoopIds(db, withHomes));
  for (const loopId of withHomes.filter((id) => !kept.has(id))) unlessRefused(() => removeAgentHomes(home, loopId), undefined);
  return refused;
}
