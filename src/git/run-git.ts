// Running git for the worktree modules: a non-zero exit is a result to judge, anything else is thrown.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export interface GitResult {
  ok: boolean;
  stdout: string;
  stderr: string;
}

/** Runs git in `cwd` (with `env` added to the worker's); a non-zero exit is a result, anything else (no git, no directory) is thrown. */
export async function git(cwd: string, args: string[], env?: Record<string, string>): Promise<GitResult> {
  try {
    const { stdout, stderr } = await execFileAsync('git', args, {
      cwd,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      ...(env && { env: { ...process.env, ...env } }),
    });
    return { ok: true, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof failed.code !== 'number') throw error;
    return { ok: false, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

export async function gitOrThrow(cwd: string, args: string[], env?: Record<string, string>): Promise<string> {
  const result = await git(cwd, args, env);
  if (!result.ok) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${result.stderr.trim() || result.stdout.trim()}`);
  return result.stdout;
}
