// Codex (`@openai/codex`): `codex exec --json` headless, JSONL events on stdout, canopy's MCP server
// wired for this run only by `-c` overrides that name the token variable instead of copying it.
import { jsonLines, numberOrNull, stringOrNull } from './json-lines';
import { canopyStdioServer } from './mcp-config';
import { CONNECTION_FAILURE, firstMatch } from './outage';
import { resetTimeOf } from './reset-time';
import type { AgentAdapter, AgentInvocation, AgentRun, PlatformSettings, QuotaHit } from './types';

export const MCP_STARTUP_TIMEOUT_SECONDS = 60;

export const codex: AgentAdapter = {
  binary: 'codex',
  invocation(run: AgentRun, settings: PlatformSettings): AgentInvocation {
    const server = canopyStdioServer(run);
    const env = Object.entries(server.env).map(([name, value]) => `${name}=${JSON.stringify(value)}`);
    const overrides = [
      `mcp_servers.canopy.command=${JSON.stringify(server.command)}`,
      `mcp_servers.canopy.args=${JSON.stringify(server.args)}`,
      `mcp_servers.canopy.env={${env.join(',')}}`,
      // codex gives a stdio server a few variables of its own environment only: the token is passed on by name.
      `mcp_servers.canopy.env_vars=${JSON.stringify([run.tokenEnv])}`,
      // With approvals off ("never"), a tool that needs approval is cancelled instead of asked about.
      'mcp_servers.canopy.default_tools_approval_mode="approve"',
      // Codex starts its first turn about a second after launch without waiting for an optional server: when
      // canopy's server had not listed its tools by then (a busy machine), the model never saw them and the
      // run ended unreported. A required server is waited for, up to its start-up timeout, before the turn,
      // and one that cannot start stops codex with an error instead of a run without canopy's tools.
      // A probe has nothing to report to.
      ...(run.probe ? [] : ['mcp_servers.canopy.required=true']),
      // Codex gives a server 10 s to answer by default: on a machine busy with a fleet, canopy's server can
      // take longer to start.
      `mcp_servers.canopy.startup_timeout_sec=${MCP_STARTUP_TIMEOUT_SECONDS}`,
      // A login shell rereads /etc/profile, which resets PATH and hides canopy's `canopy` shim.
      'allow_login_shell=false',
    ];
    return {
      command: settings.command ?? 'codex',
      args: [
        'exec',
        // `codex exec resume` takes the same options after it, then the session and `-` for the prompt on stdin.
        ...(run.session ? ['resume'] : []),
        '--json',
        '--skip-git-repo-check',
        '--dangerously-bypass-approvals-and-sandbox',
        ...overrides.flatMap((override) => ['-c', override]),
        ...(run.model ? ['--model', run.model] : []),
        ...settings.args,
        ...(run.session ? [run.session, '-'] : []),
      ],
      env: {},
      files: {},
      // `codex exec` with no prompt argument reads it from standard input.
      stdinFile: run.promptFile,
    };
  },
  read(stdout) {
    const events = jsonLines(stdout);
    const messages = events.filter((e) => e.type === 'item.completed' && (e.item as { type?: string })?.type === 'agent_message');
    const turns = events.filter((e) => e.type === 'turn.completed').map((e) => (e.usage ?? {}) as Record<string, unknown>);
    const sum = (key: string) => (turns.length ? turns.reduce((total, usage) => total + (numberOrNull(usage[key]) ?? 0), 0) : null);
    const last = messages.at(-1)?.item as { text?: string } | undefined;
    return {
      finalMessage: last?.text ?? null,
      usage: turns.length
        ? {
            input_tokens: sum('input_tokens'),
            cached_input_tokens: sum('cached_input_tokens'),
            output_tokens: sum('output_tokens'),
            cost_usd: null,
          }
        : null,
      model: null,
    };
  },
  quota(stdout, stderr, now) {
    const errors = jsonLines(stdout)
      .filter((e) => e.type === 'error')
      .map((e) => (typeof e.message === 'string' ? e.message : ''));
    return codexQuota([...errors, stderr].join('\n'), now);
  },
  outage(stdout, stderr) {
    const failures = jsonLines(stdout).flatMap((e) => {
      if (e.type === 'error' && typeof e.message === 'string') return [e.message];
      const error = e.type === 'turn.failed' ? (e.error as { message?: unknown } | undefined) : undefined;
      return typeof error?.message === 'string' ? [error.message] : [];
    });
    return codexOutage([...failures, stderr].join('\n'));
  },
  session: {
    // `thread.started` names the thread, the same one again when it is resumed.
    idOf: (stdout) => stringOrNull(jsonLines(stdout).find((e) => e.type === 'thread.started')?.thread_id),
    // "Error: thread/resume: thread/resume failed: no rollout found for thread id <id> (code -32600)", exit 1.
    refusal: (stdout, stderr) => firstMatch(`${stdout}\n${stderr}`, [/[^\n]*no rollout found for thread id[^\n]*/]),
    // A resumed thread's turn.completed counts every turn of the thread.
    runningTotals: true,
  },
};

/**
 * "unexpected status 503 Service Unavailable: …" (openai/codex#35316, #13274), "stream error: …"
 * and "stream disconnected before completion" once its own reconnects ran out, and "We're currently
 * experiencing high demand, which may cause temporary errors." (openai/codex#35320).
 */
export function codexOutage(text: string): string | null {
  return firstMatch(text, [
    /[^\n]*\bunexpected status 5\d\d\b[^\n]*/i,
    /[^\n]*\b5\d\d (?:Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b[^\n]*/i,
    /[^\n]*\bstream (?:error|disconnected before completion)\b[^\n]*/i,
    /[^\n]*experiencing high demand[^\n]*/i,
    CONNECTION_FAILURE,
  ]);
}

/**
 * "You’ve hit your usage limit. Upgrade to Pro (…) or try again at 8:41 AM." (codex 0.169 binary;
 * a later day adds the date: "try again at Jul 5th, 2026 8:19 PM", openai/codex#26668), in the codex
 * process's time zone; releases before 0.40 said "try again in 5 days 22 hours 11 minutes" (openai/codex#3899).
 */
export function codexQuota(text: string, now: Date): QuotaHit | null {
  const hit = /You(?:'|\u2019)ve hit your usage limit[^\n]*/.exec(text);
  if (!hit) return null;
  return { message: hit[0].trim(), resetAt: resetTimeOf(hit[0], now) };
}
