// Whether the processes a node starts run confined (src/process/confinement.ts): on wherever bwrap
// works, unless config.json or the loop's settings say `confine: false`.
import { loadFileConfig } from './agents/config';
import { configFilePath } from './agents/config-file';
import { confinementSupport } from './process/confinement';

/** `chosen`: turned off by a setting, not for want of a working bwrap. */
export type ConfinementPolicy = { confined: true; bwrap: string } | { confined: false; why: string; chosen: boolean };

/** For a loop whose settings say `loopSetting`; without one, what applies to every loop of this home. */
export function confinementPolicy(home: string, loopSetting?: boolean): ConfinementPolicy {
  if (loopSetting === false) return { confined: false, why: "the loop's settings say confine: false", chosen: true };
  if (loadFileConfig(home).confine === false) return { confined: false, why: `${configFilePath(home)} says confine: false`, chosen: true };
  const support = confinementSupport();
  return support.available ? { confined: true, bwrap: support.bwrap } : { confined: false, why: support.reason, chosen: false };
}

/** One line for people: what an agent or check of this home can reach. */
export function describeConfinement(policy: ConfinementPolicy): string {
  return policy.confined
    ? `agents and checks run confined by ${policy.bwrap}: canopy's home hidden but for their run directory, a private /tmp, no other process visible`
    : `agents and checks run unconfined (${policy.why}): they can read canopy's home, its operator token included, and other runs' processes`;
}
