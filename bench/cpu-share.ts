// Where a node step's CPU goes, process by process, beside the floor's. Many loops at once on two
// cores are bound by the CPU each step takes, so this says which process to make cheaper.
import { readFileSync } from 'node:fs';
import { statFields } from '../test/helpers/processes';

/** Linux counts process times in ticks of 1/100 s (USER_HZ). */
const TICK_MS = 10;

/** A process whose CPU is counted: its own, or that of the processes it started and waited for (`started`). */
export interface Party {
  label: string;
  pid: number;
  started?: boolean;
}

function processCpuMs({ pid, started }: Party): number {
  // utime, stime, cutime and cstime are the 12th to 15th fields after the command name.
  const fields = statFields(pid).map(Number);
  return (started ? fields[13] + fields[14] : fields[11] + fields[12]) * TICK_MS;
}

/** Both cores' busy time: every process's and the kernel's. */
function machineBusyMs(): number {
  const [user, nice, system, , , irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user + nice + system + irq + softirq + steal) * TICK_MS;
}

/** The CPU per step of `work`, which makes `steps` node steps: the machine's, and each party's, in ms by label. */
export async function cpuPerStep(parties: Party[], steps: number, work: () => Promise<unknown>): Promise<Record<string, number>> {
  const before = parties.map(processCpuMs);
  const machineBefore = machineBusyMs();
  await work();
  const machine = (machineBusyMs() - machineBefore) / steps;
  const shares = parties.map((party, i) => [party.label, (processCpuMs(party) - before[i]) / steps] as const);
  return { machine, ...Object.fromEntries(shares) };
}
