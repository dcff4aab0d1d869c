// What changed between two commits of a workdir, as a node run's page shows it: the paths and the patch.
import { git } from './run-git';

/** Patches longer than this are cut, saying so: a page shows a node run's diff, not a vendored tree. */
export const DIFF_LIMIT = 1024 * 1024;
const DIFF_TIMEOUT_MS = 30_000;

export type CommitDiff = { paths: string[]; patch: string; cut: boolean } | { unavailable: string };

export async function diffBetween(workdir: string, from: string, to: string): Promise<CommitDiff> {
  const unavailable = (why: string) => ({
    unavailable: `git could not compare ${from.slice(0, 12)} and ${to.slice(0, 12)} in ${workdir}: ${why.trim()}`,
  });
  try {
    const [names, patch] = await Promise.all([
      git(workdir, ['diff', '--name-only', '-z', from, to], undefined, DIFF_TIMEOUT_MS),
      git(workdir, ['diff', '--no-color', '--no-ext-diff', from, to], undefined, DIFF_TIMEOUT_MS),
    ]);
    const failed = [names, patch].find((result) => !result.ok);
    if (failed) return unavailable(failed.stderr);
    return {
      paths: names.stdout.split('\0').filter(Boolean),
      patch: patch.stdout.slice(0, DIFF_LIMIT),
      cut: patch.stdout.length > DIFF_LIMIT,
    };
  } catch (error) {
    return unavailable((error as Error).message);
  }
}
