// The messages between a worker and its launcher process: requests to start processes, and what
// becomes of each one. Shared by both sides.

export interface LaunchRequest {
  type: 'launch';
  id: number;
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Start the process as the leader of a new process group. */
  detached: boolean;
  /** Pass on what the process prints; without, it goes nowhere and spares the pipes. */
  captureOutput: boolean;
  /** A file the process reads as its standard input; without, it reads nothing (/dev/null). */
  stdinFile?: string;
}

export type LaunchEvent =
  | { type: 'spawn'; id: number; pid: number }
  | { type: 'error'; id: number; message: string; code: string | null }
  | { type: 'stdout' | 'stderr'; id: number; chunk: Buffer }
  | { type: 'exit' | 'close'; id: number; exitCode: number | null; signal: NodeJS.Signals | null };
