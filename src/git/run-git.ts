// Running git for the worktree modules: a non-zero exit is a result to judge, anything else is thrown.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * How long one git command may run (here and in ./workdir). The activities around it heartbeat
 * however long they take, so a git that never returns (a workdir on a mount that stopped answering)
 * must be stopped here; then the activity fails, and its bounded retries end in a failed node
 * instead of a hung loop.
 */
export const GIT_TIMEOUT_MS = 10 * 60_000;

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/**
 * Runs git in `cwd` (with `env` added to the worker's); a non-zero exit is a result, anything else (no
 * git, no directory, no end within `timeoutMs`) is thrown.
 */
export async function git(cwd: string, args: string[], env?: Record<string, string>, timeoutMs = GIT_TIMEOUT_MS): Promise<GitResult> {
  try {
    const { stdout, stderr } = await execFileAsync('git', args, {
      cwd,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      ...(env && { env: { ...process.env, ...env } }),
    });
    return { ok: true, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; killed?: boolean; stdout?: string; stderr?: string };
    if (failed.killed)
      throw new Error(`git ${args.join(' ')} did not end within ${timeoutMs / 1000} s in ${cwd}, so it was stopped`, { cause: error });
    if (typeof failed.code !== 'number') throw error;
    return { ok: false, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

export async function gitOrThrow(cwd: string, args: string[], env?: Record<string, string>): Promise<string> {
  const result = await git(cwd, args, env);
  if (!result.ok) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout;
}
