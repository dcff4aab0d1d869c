// Confining what a node starts with bubblewrap: agents and checks are the untrusted part of canopy, so
// each runs where canopy's home is hidden (but for its own run directory), with a private /tmp and a
// PID namespace of its own (no other process, and so no other run's token in /proc, is visible), while
// the workdir, the git metadata it commits to and the directories its environment names as its own
// stay as the user sees them, writable. The rest of the file system and the network are left as they are.
import { spawnSync } from 'node:child_process';
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { findOnPath } from './find-on-path';

export interface Confinement {
  /** The bwrap that confines (confinementSupport's). */
  bwrap: string;
  /** The canopy home, hidden. */
  home: string;
  /** The node run's own directory inside the home, kept. */
  runDir: string;
  /** The workdir and what else the process must write where it would be hidden (git metadata outside it). */
  writable: string[];
  /** What the process runs of canopy itself (its installation, the node running it): seen where it is, read-only, even under /tmp. */
  readOnly: string[];
}

/** Whether processes can be confined on this machine, and with which bwrap; why not when they cannot. */
export type ConfinementSupport = { available: true; bwrap: string } | { available: false; reason: string };

/** Environment variables that name a directory of the process's own: kept visible, wherever they are. */
const OWN_DIRECTORY = /^(HOME|TMPDIR|[A-Z0-9_]*_HOME)$/;

/**
 * The argv that runs `executable args` confined, from `cwd`. Mounts are applied shallowest first, so
 * a directory kept inside a hidden one (a workdir under /tmp, the run directory in the home) is bound
 * back over it, and the home is hidden again inside a kept directory that holds it (HOME=~, home ~/.canopy).
 */
export function confinedArgv(
  confinement: Confinement,
  command: { executable: string; args: string[]; cwd: string; env: NodeJS.ProcessEnv },
): string[] {
  const home = realOrSelf(confinement.home);
  const kept = [
    realOrSelf(confinement.runDir),
    ...confinement.writable.map(realOrSelf),
    ...[...ownDirectories(command.env), path.dirname(command.executable)].map(realOrSelf).filter((dir) => !isWithin(dir, home)),
  ];
  const canopyItself = confinement.readOnly.map(realOrSelf).filter((dir) => !isWithin(dir, home));
  const hidden: Mount[] = [
    { kind: 'tmpfs', at: '/tmp' },
    { kind: 'tmpfs', at: home },
  ];
  const mounts = [
    ...hidden,
    ...[...new Set(canopyItself)].filter(isDirectory).map((at): Mount => ({ kind: 'ro-bind', at })),
    ...[...new Set(kept)].filter(isDirectory).map((at): Mount => ({ kind: 'bind', at })),
  ].sort(
    // At one depth hiding comes last: a directory kept that is the home itself stays hidden.
    (a, b) => depth(a.at) - depth(b.at) || Number(a.kind === 'tmpfs') - Number(b.kind === 'tmpfs'),
  );
  return [
    confinement.bwrap,
    '--bind',
    '/',
    '/',
    // Devices of its own (null, zero, random, tty and the like): a disk's device node would let root read the home off the disk.
    '--dev',
    '/dev',
    '--proc',
    '/proc',
    ...mounts.flatMap((mount) => (mount.kind === 'tmpfs' ? ['--tmpfs', mount.at] : [`--${mount.kind}`, mount.at, mount.at])),
    '--unshare-pid',
    // Run by root, bwrap would leave it every capability, among them unmounting what hides the home.
    '--cap-drop',
    'ALL',
    // The supervisor is bwrap's parent: a supervisor killed alone takes the command with it instead of leaving it unwatched.
    '--die-with-parent',
    '--chdir',
    realOrSelf(command.cwd),
    '--',
    command.executable,
    ...command.args,
  ];
}

interface Mount {
  kind: 'tmpfs' | 'bind' | 'ro-bind';
  at: string;
}

function ownDirectories(env: NodeJS.ProcessEnv): string[] {
  return Object.entries(env)
    .filter(([name, value]) => OWN_DIRECTORY.test(name) && value && path.isAbsolute(value) && value !== '/')
    .map(([, value]) => value!);
}

function isWithin(dir: string, parent: string): boolean {
  const relative = path.relative(parent, dir);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

function depth(dir: string): number {
  return dir.split(path.sep).filter(Boolean).length;
}

function realOrSelf(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return path.resolve(dir);
  }
}

function isDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

let support: ConfinementSupport | undefined;

/**
 * Whether bwrap is on PATH and may make the namespaces and mounts confinement needs (a container may
 * refuse unprivileged user namespaces): tried once per process with the shape a node gets.
 */
export function confinementSupport(): ConfinementSupport {
  support ??= probeSupport();
  return support;
}

function probeSupport(): ConfinementSupport {
  const bwrap = findOnPath('bwrap', process.env.PATH ?? '');
  if (!bwrap) return { available: false, reason: 'bwrap is not on PATH (Debian and Ubuntu: apt-get install bubblewrap)' };
  const argv = confinedArgv(
    { bwrap, home: '/tmp', runDir: '/tmp', writable: [], readOnly: [] },
    { executable: '/bin/sh', args: ['-c', 'exit 0'], cwd: '/', env: {} },
  );
  const tried = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'ignore', 'pipe'] });
  if (tried.status === 0) return { available: true, bwrap };
  const why = tried.error?.message ?? (tried.stderr.trim() || `it exited with ${tried.status ?? tried.signal}`);
  return { available: false, reason: `${bwrap} is refused here: ${why}` };
}
