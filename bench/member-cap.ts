// The member cap under load: loops of 4-member ensembles started at once on one worker, the member
// processes counted from /proc while they drain, against the drain time a perfect cap would give.
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClientContext } from '../src/client/context';
import { importLoop } from '../src/client/export-import-service';
import { startLoopRun, waitForLoopRun } from '../src/client/runs-service';
import { createSpec } from '../src/client/specs-service';
import { countRunning } from '../test/helpers/running-processes';

/** The platform the bench's config.json gives its members: a second of work, its prompt (with the round's marker) in argv. */
export const MEMBER_PLATFORM = 'bench-member';
export const MEMBER_SECONDS = 1;
export const memberPlatformEntry = { argv: ['bash', '-c', `sleep ${MEMBER_SECONDS}; echo drafted`, MEMBER_PLATFORM, '{{prompt}}'] };

const MEMBERS = 4;

export interface MemberCapRound {
  mostAtOnce: number;
  drainMs: number;
}

/** The member processes running now whose prompt holds `marker` (not their supervisors' shells). */
function membersRunning(marker: string): number {
  return countRunning(
    (argv) => path.basename(argv[0]) === 'bash' && argv.includes(MEMBER_PLATFORM) && argv.some((arg) => arg.includes(marker)),
  );
}

/** `loops` loops of one 4-member ensemble each, started at once, run to their end while their members are counted. */
export async function memberCapRound(ctx: ClientContext, loops: number, workdirs: string[]): Promise<MemberCapRound> {
  const marker = `bench-${randomBytes(4).toString('hex')}`;
  const document = {
    format_version: 2,
    name: 'drafters',
    nodes: [],
    edges: [],
    ensembles: [
      { name: 'drafters', prompt_template: marker, members: Array.from({ length: MEMBERS }, () => ({ platform: MEMBER_PLATFORM })) },
    ],
  };
  const ids: string[] = [];
  for (let i = 0; i < loops; i++) {
    const workdir = mkdtempSync(path.join(os.tmpdir(), 'canopy-bench-'));
    workdirs.push(workdir);
    const { loop_id } = await importLoop(ctx, document, { workdir });
    await createSpec(ctx, { loop_id, name: 'draft' });
    ids.push(loop_id);
  }
  let mostAtOnce = 0;
  let draining = true;
  const counting = (async () => {
    while (draining) {
      mostAtOnce = Math.max(mostAtOnce, membersRunning(marker));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const started = Date.now();
  await Promise.all(ids.map((id) => startLoopRun(ctx, id)));
  const results = await Promise.all(ids.map((id) => waitForLoopRun(ctx, id)));
  const drainMs = Date.now() - started;
  draining = false;
  await counting;
  const failed = results.find((result) => result.status !== 'completed');
  if (failed) throw new Error(`bench ensemble loop ${failed.status}: ${failed.reason}`);
  return { mostAtOnce, drainMs };
}

/** The drain time of a cap that never idles a slot: the members in full waves of `cap`, each member's work alone. */
export function perfectDrainMs(loops: number, cap: number): number {
  return Math.ceil((loops * MEMBERS) / cap) * MEMBER_SECONDS * 1000;
}
