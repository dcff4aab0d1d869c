// A person's terminal for tests of canopy's terminal views: tmux sessions, their panes and keys.
import { spawnSync } from 'node:child_process';
import type { Key } from 'ink' with { 'resolution-mode': 'import' };
import type { CanopyConfig } from '../../src/config';
import { childEnv } from './engine';
import { waitUntil } from './wait';

/** A key with nothing pressed, as Ink reports one; a test spreads over it what it presses. */
export const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

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

/** What a terminal app of canopy needs to reach the engine under test: its home, server and task queue. */
export function terminalEnv(config: CanopyConfig): Record<string, string> {
  const env = childEnv(config);
  return { CANOPY_HOME: env.CANOPY_HOME!, TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS!, CANOPY_TASK_QUEUE: env.CANOPY_TASK_QUEUE! };
}

/** A tmux session's pane as a person sees and types into it. */
export function paneOf(session: string) {
  const screen = () => tmux('capture-pane', '-p', '-t', session);
  return {
    screen,
    shows: (what: string, pattern: RegExp, timeoutMs = 60_000) =>
      waitUntil(`the app to show ${what}`, () => Promise.resolve(pattern.test(screen())), timeoutMs).catch((error: Error) => {
        throw new Error(`${error.message}; the screen was:\n${screen()}`);
      }),
    /** One key at a time, as a person types: keys sent together may arrive in one read. */
    press: async (...keys: string[]) => {
      for (const key of keys) {
        tmux('send-keys', '-t', session, key);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    },
    /** Types `text` and waits until the screen shows it: an Enter sent right after could otherwise overtake it. */
    type: (text: string) => {
      tmux('send-keys', '-t', session, '-l', text);
      return waitUntil(`the app to show ${text}`, () => Promise.resolve(screen().includes(text)), 10_000);
    },
  };
}

/** The escape sequence `capture-pane -e` writes where inverse text begins. */
export const INVERSE = '\x1b[7m';

/** The lines of `canopy tui`'s sidebar (the left column of the screen). */
export const sidebar = (screen: string) =>
  screen
    .split('\n')
    .map((line) => line.slice(0, 38))
    .join('\n');
