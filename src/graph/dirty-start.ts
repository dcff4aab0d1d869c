// Whether a spec may start on the workdir as it is: not on changes a failed run left behind.

/** What the last failed (or stopped) run of the loop left in the tree, as its last agent or check recorded it. */
export interface LeftByFailedRun {
  specName: string;
  paths: string[];
}

export interface SpecStartFacts {
  loopId: string;
  workdir: string;
  specName: string;
  /** What git reports uncommitted now. */
  dirty: string[];
  left: LeftByFailedRun | null;
  allowDirtyStart: boolean;
}

const PATHS_NAMED = 10;

/**
 * The reason the spec does not start, or null when it may: the tree still holds paths the failed
 * run left, and the loop does not allow a dirty start. A person's own changes, or a tree a
 * completed run left, never stop a start.
 */
export function dirtyStartRefusal(facts: SpecStartFacts): string | null {
  if (facts.allowDirtyStart || !facts.left) return null;
  const leftPaths = new Set(facts.left.paths);
  const stillLeft = facts.dirty.filter((path) => leftPaths.has(path));
  if (stillLeft.length === 0) return null;
  const named = stillLeft.slice(0, PATHS_NAMED).join(', ');
  const more = stillLeft.length > PATHS_NAMED ? ` and ${stillLeft.length - PATHS_NAMED} more` : '';
  return (
    `spec '${facts.specName}' does not start: the workdir ${facts.workdir} still has the uncommitted changes the failed run of ` +
    `spec '${facts.left.specName}' left (${named}${more}); commit, stash (\`git -C ${shellWord(facts.workdir)} stash --include-untracked\`) ` +
    `or discard them, then \`canopy loop continue ${facts.loopId}\`; or let specs start on a dirty tree with ` +
    `\`canopy loop update ${facts.loopId} --allow-dirty-start\``
  );
}

/** The path as one shell word, so the suggested command can be pasted as it is. */
function shellWord(text: string): string {
  return /^[\w./@%+=:,-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
