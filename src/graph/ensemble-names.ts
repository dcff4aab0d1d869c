// Names of the nodes an ensemble expands into, and recognising them where only the ensemble belongs.

export function memberNodeName(ensemble: string, index: number): string {
  return `${ensemble}/member-${index + 1}`;
}

export function quorumNodeName(ensemble: string): string {
  return `${ensemble}/quorum`;
}

const MEMBER_NAME = /^.+\/member-[1-9]\d*$/;

/** Whether a node name is an ensemble member's, whichever kind of ensemble made it. */
export function isMemberNodeName(name: string): boolean {
  return MEMBER_NAME.test(name);
}

const INTERNAL_NAME = /^(.+)\/(?:member-[1-9]\d*|quorum)$/;

/** The ensemble a member or quorum node name belongs to, or null for any other name. */
export function ensembleOfInternalName(name: string): string | null {
  return INTERNAL_NAME.exec(name)?.[1] ?? null;
}

/** How a member is named to people: `platform/model`, as the quorum document heads its section. */
export function memberLabel(member: { platform?: string | null; model?: string | null }, fallback = '?'): string {
  if (!member.platform) return fallback;
  return member.model ? `${member.platform}/${member.model}` : member.platform;
}
