// A loop's workdir is checked where a loop gets one (create, update, import): every node runs in
// it, so a path that is relative (to whose directory?), missing or a file would only fail at run time.
import { statSync } from 'node:fs';
import path from 'node:path';
import { invalidInput } from '../domain/errors';

/** The workdir, normalised, or a refusal naming `field` and the fix. */
export function requireWorkdir(workdir: string, what: string, field = 'workdir'): string {
  const refuse = (message: string) => invalidInput(what, [{ field, message }]);
  if (!path.isAbsolute(workdir)) {
    throw refuse(`must be an absolute path, not '${workdir}'; pass the full path of the directory (e.g. ${path.resolve(workdir)})`);
  }
  const stats = statSync(workdir, { throwIfNoEntry: false });
  if (!stats) throw refuse(`'${workdir}' does not exist; create it first, or pass an existing directory (--workdir)`);
  if (!stats.isDirectory()) throw refuse(`'${workdir}' is not a directory; pass the directory the loop works in (--workdir)`);
  return path.resolve(workdir);
}
