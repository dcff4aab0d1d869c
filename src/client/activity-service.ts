// Which loops moved: a mark per loop that changes when the loop changes (status, settings) or one of
// its node runs starts or ends, read from the store in two queries however many loops there are; and
// what each running node run has printed so far, in one more.
import { listLoops } from './loops-service';
import type { ClientContext } from './context';
import { nodeRunMarks, runningOutputs } from '../store/node-runs-repository';

export async function loopActivityMarks(ctx: ClientContext): Promise<Map<string, string>> {
  const [loops, runs] = await Promise.all([listLoops(ctx, { include_archived: true }), nodeRunMarks(ctx.db)]);
  return new Map(loops.map((loop) => [loop.id, `${loop.status}|${loop.updated_at}|${runs.get(loop.id) ?? ''}`]));
}

/** The output tail recorded for each running node run, by its id (a run records the newest lines every few seconds). */
export const runningOutputMarks = (ctx: ClientContext): Promise<Map<string, string>> => runningOutputs(ctx.db);
