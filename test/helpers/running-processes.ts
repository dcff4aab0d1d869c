// Counting processes on this machine from /proc, as the tests and the bench measure what canopy runs.
import { readdirSync, readFileSync } from 'node:fs';

/** Pids of the processes running now for which `test` (reading their /proc entries) holds; one that ends while read is left out. */
export function livePidsWhere(test: (pid: number) => boolean): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number)
    .filter((pid) => {
      try {
        return test(pid);
      } catch {
        return false;
      }
    });
}

/**
 * How many processes running now have an argv that `matches`, counting once a process and the copies
 * of itself it forks to run a command (a copy's parent matches too).
 */
export function countRunning(matches: (argv: string[]) => boolean): number {
  const parents = new Map<string, string>();
  for (const pid of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      if (!matches(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'))) continue;
      parents.set(pid, /^\d+ \(.*\) \S (\d+)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))![1]);
    } catch {
      // ended while being read
    }
  }
  return [...parents.values()].filter((parent) => !parents.has(parent)).length;
}
