// HEAD's commit read from the repository's own files, as `git rev-parse --verify HEAD` reports it,
// without starting git: a node step reads HEAD before and after it runs, and a git process is the
// larger part of that read. Only the layouts whose answer is certain are read here; for anything
// else (a workdir below the repository's top, another owner, reftable, GIT_DIR and the like in the
// environment, content it does not recognise) the answer is null and the caller asks git.
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** Environment variables that change which repository git reads, or how. */
const GIT_LOCATION_VARIABLES = ['GIT_DIR', 'GIT_COMMON_DIR', 'GIT_WORK_TREE', 'GIT_CEILING_DIRECTORIES', 'GIT_NAMESPACE'];
/** git reads at most this many references to resolve one, HEAD included. */
const MAX_SYMREF_READS = 5;
/** References kept per worktree; every other reference is shared by all worktrees. */
const PER_WORKTREE = /^(?:HEAD|refs\/(?:bisect|worktree|rewritten)\/)/;

/** HEAD's object id; '' on an unborn branch; null where only git can say. */
export function headFromFiles(workdir: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (GIT_LOCATION_VARIABLES.some((name) => env[name] !== undefined)) return null;
  const gitDir = gitDirectoryOf(workdir);
  if (!gitDir || !ownedByUs(workdir) || !ownedByUs(gitDir)) return null;
  const commonDir = readText(path.join(gitDir, 'commondir'));
  if (commonDir === null) return null;
  const shared = commonDir === undefined ? gitDir : path.resolve(gitDir, commonDir.trim());
  if (statSync(path.join(shared, 'reftable'), { throwIfNoEntry: false })) return null;
  return resolveReference('HEAD', { gitDir, shared }, 0);
}

/** The `.git` directory of a workdir at a repository's top, or the one a `.git` file names (worktrees, separate git dirs). */
function gitDirectoryOf(workdir: string): string | null {
  const entry = path.join(workdir, '.git');
  const stat = statSync(entry, { throwIfNoEntry: false });
  if (stat?.isDirectory()) return entry;
  if (!stat?.isFile()) return null;
  const pointer = /^gitdir: (.+)$/m.exec(readText(entry) ?? '');
  return pointer ? path.resolve(workdir, pointer[1].trim()) : null;
}

/** git refuses a repository another user owns, so its answer there is not the files'. */
function ownedByUs(file: string): boolean {
  return statSync(file, { throwIfNoEntry: false })?.uid === process.getuid?.();
}

function resolveReference(name: string, dirs: { gitDir: string; shared: string }, depth: number): string | null {
  if (depth >= MAX_SYMREF_READS) return null;
  const loose = readText(path.join(PER_WORKTREE.test(name) ? dirs.gitDir : dirs.shared, name));
  if (loose === null) return null;
  if (loose === undefined) return name === 'HEAD' ? null : packedReference(dirs.shared, name);
  const value = loose.trim();
  if (OBJECT_ID.test(value)) return value;
  const target = /^ref: (refs\/\S+)$/.exec(value);
  return target ? resolveReference(target[1], dirs, depth + 1) : null;
}

/** The object id `packed-refs` lists for the reference; '' when it lists none (an unborn branch). */
function packedReference(shared: string, name: string): string | null {
  const packed = readText(path.join(shared, 'packed-refs'));
  if (packed === null) return null;
  for (const line of (packed ?? '').split('\n')) {
    const [id, ref] = line.split(' ');
    if (ref === name && OBJECT_ID.test(id)) return id;
  }
  return '';
}

/** A file's text; undefined when it does not exist; null when it exists but cannot be read as a file. */
function readText(file: string): string | undefined | null {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : null;
  }
}
