// opencode (`opencode-ai`): `opencode run --format json` headless, JSON events on stdout, canopy's MCP
// server added through OPENCODE_CONFIG_CONTENT (merged into any the user sets), token read by `{env:…}`.
import { jsonLines, numberOrNull, stringOrNull } from './json-lines';
import { canopyStdioServer } from './mcp-config';
import { CONNECTION_FAILURE, firstMatch } from './outage';
import type { AgentAdapter, AgentInvocation, AgentRun, PlatformSettings } from './types';

export const opencode: AgentAdapter = {
  binary: 'opencode',
  invocation(run: AgentRun, settings: PlatformSettings): AgentInvocation {
    const given = settings.env.OPENCODE_CONFIG_CONTENT ? (JSON.parse(settings.env.OPENCODE_CONFIG_CONTENT) as Record<string, unknown>) : {};
    const server = canopyStdioServer(run);
    const canopy = {
      type: 'local',
      command: [server.command, ...server.args],
      environment: { ...server.env, [run.tokenEnv]: `{env:${run.tokenEnv}}` },
    };
    // Snapshots off unless the user's content turns them on: opencode copies the workdir into a git
    // repository of its own for its undo, which a headless run never uses (a sixth of a short run's CPU).
    const content = { snapshot: false, ...given, mcp: { ...(given.mcp ?? {}), canopy } };
    return {
      command: settings.command ?? 'opencode',
      args: [
        'run',
        '--format',
        'json',
        '--auto',
        ...(run.model ? ['--model', run.model] : []),
        ...(run.session ? ['--session', run.session] : []),
        ...settings.args,
      ],
      env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(content) },
      files: {},
      // `opencode run` reads standard input, when it is not a terminal, as the message (after any given in argv).
      stdinFile: run.promptFile,
    };
  },
  read(stdout) {
    const events = jsonLines(stdout);
    const parts = events.map((e) => (e.part ?? {}) as Record<string, unknown>);
    const texts = parts.filter((p) => p.type === 'text' && typeof p.text === 'string');
    const steps = parts.filter((p) => p.type === 'step-finish');
    const tokens = (read: (counts: StepTokens) => unknown) =>
      steps.reduce((total, step) => total + (numberOrNull(read((step.tokens ?? {}) as StepTokens)) ?? 0), 0);
    // Its `input` leaves out what the provider's cache read and wrote, which were sent all the same.
    const cached = tokens((counts) => counts.cache?.read);
    return {
      finalMessage: (texts.at(-1)?.text as string | undefined) ?? null,
      usage: steps.length
        ? {
            input_tokens: tokens((counts) => counts.input) + cached + tokens((counts) => counts.cache?.write),
            cached_input_tokens: cached,
            output_tokens: tokens((counts) => counts.output),
            cost_usd: steps.reduce((t, s) => t + (numberOrNull(s.cost) ?? 0), 0),
          }
        : null,
      model: null,
    };
  },
  // opencode waits out a provider's 429 itself (retry-after, unbounded), so no limit message reaches its output.
  quota: () => null,
  outage(stdout, stderr) {
    const errors = jsonLines(stdout)
      .filter((e) => e.type === 'error')
      .map((e) => (e.error ?? {}) as OpencodeError);
    return opencodeOutage(errors, stderr);
  },
  session: {
    // Every event names the session it belongs to.
    idOf: (stdout) => stringOrNull(jsonLines(stdout).find((e) => typeof e.sessionID === 'string')?.sessionID),
    refusal: (stdout, stderr) => firstMatch(`${stdout}\n${stderr}`, [OPENCODE_NO_SESSION]),
  },
};

/** What `opencode run --session` prints for a session it does not have. */
const OPENCODE_NO_SESSION = /[^\n]*Session not found[^\n]*/i;

/** A step's token counts in `opencode run --format json`'s `step-finish` parts. */
interface StepTokens {
  input?: unknown;
  output?: unknown;
  cache?: { read?: unknown; write?: unknown };
}

interface OpencodeError {
  name?: unknown;
  data?: { message?: unknown; statusCode?: unknown };
}

/**
 * opencode ends a run on a provider failure with an `error` event whose error is an APIError with
 * the provider's statusCode and message (`{"type":"overloaded_error","message":"Overloaded"}` from
 * Anthropic, anomalyco/opencode#2096), or names the connection failure.
 */
export function opencodeOutage(errors: OpencodeError[], stderr: string): string | null {
  for (const error of errors) {
    const message = typeof error.data?.message === 'string' ? error.data.message : typeof error.name === 'string' ? error.name : 'error';
    const status = numberOrNull(error.data?.statusCode);
    if ((status !== null && status >= 500) || /overloaded|unavailable/i.test(message)) return status ? `${status} ${message}` : message;
    const connection = firstMatch(message, [CONNECTION_FAILURE]);
    if (connection) return connection;
  }
  return firstMatch(stderr, [CONNECTION_FAILURE]);
}
