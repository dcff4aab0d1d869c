// Finding a program the way a shell would: the first executable of that name in the directories of a PATH.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

export function findOnPath(name: string, pathVar: string): string | null {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
