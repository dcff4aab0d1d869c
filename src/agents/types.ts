// What an agent adapter knows about one CLI, and what the agent activity asks of it for one run.
import type { PrivateHome } from './private-home';

/** One run as the adapter sees it: everything it may put into argv, env and the run's private files. */
export interface AgentRun {
  /** The prompt as a command line may carry it: whole, or, past the size argv allows, a note pointing at `promptFile`. */
  prompt: string;
  /** The whole prompt, in a file of the run directory: the CLIs that read it on standard input get it from here. */
  promptFile: string;
  /** The model to run, the platform's default already applied (`platformModel`); null leaves it to the CLI. */
  model: string | null;
  workdir: string;
  /** The run's private directory (mode 0700); files the adapter asks for are written here and removed with it. */
  runDir: string;
  /**
   * Where a CLI that needs a home made for canopy's settings (`AgentInvocation.home`) gets it: the same directory for
   * every run of one node, since the CLI's system prompt names it and a provider's prompt cache holds only what repeats.
   */
  privateHomeDir: string;
  /** The worker's run-token MCP endpoint. */
  mcpUrl: string;
  /** The environment variable holding the run token; configs name it rather than copy the secret. */
  tokenEnv: string;
  /** The worker runs as root (CLIs refuse some flags then). */
  asRoot: boolean;
  /** The CLI session to continue, with the prompt as the next turn of it; absent for a cold start. */
  session?: string;
  /** A `doctor --probe` run: nothing answers at mcpUrl and nothing reports, so a CLI must not refuse to start without it. */
  probe?: boolean;
}

/** How a platform is tuned in config.json on top of its adapter's defaults. */
export interface PlatformSettings {
  /** The binary to run instead of the adapter's default (a path or a name on PATH). */
  command: string | null;
  /** Extra arguments, placed before the prompt. */
  args: string[];
  env: Record<string, string>;
  /** The model used when a node names none, applied by `platformModel` before the adapter sees the run. */
  model: string | null;
}

export interface AgentInvocation {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** File name (inside the run directory) to content. */
  files: Record<string, string>;
  /**
   * The file the CLI reads as its standard input: the prompt, for every CLI that takes it there, since
   * argv is readable by every local user (`ps`). Without, it reads nothing.
   */
  stdinFile?: string;
  /** A home of the CLI's own for this run, when canopy's settings must reach it as the user's. */
  home?: PrivateHome;
}

export interface AgentUsage {
  /** Every input token the model was sent, those read from the provider's prompt cache included. */
  input_tokens: number | null;
  /** The part of `input_tokens` read from the provider's prompt cache, which it bills for less. */
  cached_input_tokens: number | null;
  output_tokens: number | null;
  cost_usd: number | null;
}

export interface AgentReading {
  /** The agent's final message, when the CLI reports one apart from its log. */
  finalMessage: string | null;
  usage: AgentUsage | null;
  /** The model the CLI says it used. */
  model: string | null;
}

/** How a CLI's sessions are read from its output and continued (the invocation resumes `AgentRun.session`). */
export interface AgentSessions {
  /** The id of the session the run had, as its output reports it. */
  idOf(stdout: string, stderr: string): string | null;
  /** The CLI's words when it could not continue the session it was given (it no longer has it, or refused). */
  refusal(stdout: string, stderr: string): string | null;
  /** The usage its output reports is the session's running total, the earlier runs' included, not the run's own. */
  runningTotals?: boolean;
}

/** A usage or rate limit the CLI reported; `resetAt` when its message says when it lifts. */
export interface QuotaHit {
  message: string;
  resetAt: Date | null;
}

export interface AgentAdapter {
  /** The binary name on PATH when config.json names no other. */
  binary: string;
  invocation(run: AgentRun, settings: PlatformSettings): AgentInvocation;
  read(stdout: string, stderr: string): AgentReading;
  quota(stdout: string, stderr: string, now: Date): QuotaHit | null;
  /** The line saying the provider failed or was overloaded (a 5xx, unavailable, no connection), if the output has one. */
  outage(stdout: string, stderr: string): string | null;
  /** Absent for a CLI whose sessions canopy cannot continue. */
  session?: AgentSessions;
}
