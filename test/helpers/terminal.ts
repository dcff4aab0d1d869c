// A person's terminal for tests of canopy's terminal views: tmux sessions, their panes and keys.
import { spawnSync } from 'node:child_process';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

export const NO_TMUX = 'tmux is not installed (.ci/run installs it)';

export function tmux(...args: string[]): string {
  return spawnSync('tmux', args, { encoding: 'utf8' }).stdout;
}

/**
 * Starts `command` in a detached tmux session of the given size, with `env` exported and `unset`
 * removed, as a person's terminal would run it: Ink draws only the last frame when it believes it runs in CI.
 */
export function openInTmux(options: {
  session: string;
  size: [number, number];
  env: Record<string, string>;
  unset?: string[];
  command: string;
  cwd?: string;
}): void {
  const exports = Object.entries(options.env)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
  const unset = ['CI', 'CONTINUOUS_INTEGRATION', ...(options.unset ?? [])].map((name) => `-u ${name}`).join(' ');
  const [width, height] = options.size.map(String);
  const where = options.cwd ? ['-c', options.cwd] : [];
  tmux('new-session', '-d', '-s', options.session, '-x', width, '-y', height, ...where, `env ${unset} ${exports} ${options.command}`);
}
