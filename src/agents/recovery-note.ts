// What an agent is told when it runs again because the process of its earlier attempt was lost (a
// machine restart, a killed worker): the workdir may hold that attempt's unfinished changes.

export const RECOVERY_NOTE =
  'An earlier attempt at this task was interrupted before it finished: its process was lost (the machine restarted or its worker died). ' +
  'Uncommitted changes in the working directory may be that attempt’s partial work rather than anyone else’s: check `git status` and ' +
  '`git diff` first, then keep, finish or discard them as the task needs.';

/** The prompt of an agent run again after a lost attempt, the note set apart before it. */
export function withRecoveryNote(prompt: string): string {
  return `[canopy] ${RECOVERY_NOTE}\n\n---\n\n${prompt}`;
}
