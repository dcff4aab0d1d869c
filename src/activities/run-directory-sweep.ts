// Run directories left behind: a run removes its own directory once its outcome is known, and when
// the disk refused that, a worker of the same home removes it as it starts.
import type { Kysely } from 'kysely';
import type { Database } from '../store/database';
import { endedNodeRunIds } from '../store/node-runs-repository';
import { removeRunDirectory, RunDirectoryError, runDirectoryIds } from '../process/run-directory';

/**
 * Removes the directories of node runs that have ended; a running one's process still writes to
 * its directory, or a retry will adopt it from there. Returns why any could not be removed.
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
  return refused;
}
