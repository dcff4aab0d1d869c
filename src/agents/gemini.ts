// Gemini CLI (`@google/gemini-cli`): `gemini -p` headless with `-o json`, canopy's MCP server in the
// user settings of a home made for the run (a system settings file is skipped unless root owns it and
// every directory above it), whose env names the token variable, which gemini expands.
import { lastJsonDocument, numberOrNull, stringOrNull } from './json-lines';
import { CONNECTION_FAILURE, firstMatch } from './outage';
import { canopyStdioServer } from './mcp-config';
import { isObject } from './private-home';
import { afterDuration } from './reset-time';
import type { AgentAdapter, AgentInvocation, AgentRun, PlatformSettings, QuotaHit } from './types';

/** canopy's name among gemini's MCP servers. */
const SERVER = 'canopy';

export const gemini: AgentAdapter = {
  binary: 'gemini',
  invocation(run: AgentRun, settings: PlatformSettings): AgentInvocation {
    const server = canopyStdioServer(run);
    // gemini expands `$NAME` when it reads its settings (later it hides variables named like a token from a server).
    const canopy = { command: server.command, args: server.args, env: { ...server.env, [run.tokenEnv]: `$${run.tokenEnv}` } };
    return {
      command: settings.command ?? 'gemini',
      // Headless gemini exits 55 in a workdir it was never told to trust.
      args: [
        '--skip-trust',
        '--yolo',
        '--output-format',
        'json',
        ...(run.model ? ['--model', run.model] : []),
        ...(run.session ? ['--resume', run.session] : []),
        ...settings.args,
      ],
      // With standard input not a terminal, gemini runs headless on what it reads there (`--prompt` is appended to it).
      stdinFile: run.promptFile,
      // gemini starts a second node process of itself for a larger heap: a third of a short run's CPU.
      // A GEMINI_CLI_NO_RELAUNCH of the user's own (empty to relaunch) wins.
      env: 'GEMINI_CLI_NO_RELAUNCH' in settings.env ? {} : { GEMINI_CLI_NO_RELAUNCH: 'true' },
      files: {},
      home: {
        variable: 'GEMINI_CLI_HOME',
        configDir: '.gemini',
        settingsFile: 'settings.json',
        homeFiles: ['.env'],
        // Its sessions, filed by project under tmp/, outlive the run's home there.
        keptDirs: ['tmp'],
        settings: (user) => withCanopyServer(user, canopy),
      },
    };
  },
  read(stdout) {
    const result = lastJsonDocument(stdout);
    if (!result || typeof result.response !== 'string') return { finalMessage: null, usage: null, model: null };
    const models = (((result.stats ?? {}) as Record<string, unknown>).models ?? {}) as Record<string, { tokens?: Record<string, unknown> }>;
    const sum = (key: string) => Object.values(models).reduce((total, m) => total + (numberOrNull(m.tokens?.[key]) ?? 0), 0);
    return {
      finalMessage: result.response,
      usage: Object.keys(models).length
        ? { input_tokens: sum('prompt'), cached_input_tokens: sum('cached'), output_tokens: sum('candidates'), cost_usd: null }
        : null,
      model: Object.keys(models)[0] ?? null,
    };
  },
  quota(stdout, stderr, now) {
    const error = (lastJsonDocument(stderr)?.error ?? lastJsonDocument(stdout)?.error) as { message?: string } | undefined;
    return geminiQuota(`${error?.message ?? ''}\n${stderr}`, now);
  },
  outage(stdout, stderr) {
    const error = (lastJsonDocument(stderr)?.error ?? lastJsonDocument(stdout)?.error) as { message?: string; code?: unknown } | undefined;
    const code = numberOrNull(error?.code);
    return geminiOutage(`${error?.message ?? ''}\n${stderr}`) ?? (code !== null && code >= 500 ? `API error ${code}` : null);
  },
  session: {
    idOf: (stdout) => stringOrNull(lastJsonDocument(stdout)?.session_id),
    // "Error resuming session: Session not found: <id>…", exit 42, before any request.
    refusal: (stdout, stderr) => firstMatch(`${stdout}\n${stderr}`, [/Error resuming session[^\n]*/]),
  },
};

/**
 * The user's gemini settings with canopy's MCP server added, and let through a user's own allow list
 * or exclusion list (gemini offers a server only if every allow list names it and none excludes it).
 */
export function withCanopyServer(user: Record<string, unknown>, canopy: Record<string, unknown>): Record<string, unknown> {
  const servers = isObject(user.mcpServers) ? user.mcpServers : {};
  const settings: Record<string, unknown> = { ...user, mcpServers: { ...servers, [SERVER]: canopy } };
  if (isObject(user.mcp)) {
    const { allowed, excluded } = user.mcp;
    settings.mcp = {
      ...user.mcp,
      ...(Array.isArray(allowed) ? { allowed: [...(allowed as unknown[]).filter((name) => name !== SERVER), SERVER] } : {}),
      ...(Array.isArray(excluded) ? { excluded: (excluded as unknown[]).filter((name) => name !== SERVER) } : {}),
    };
  }
  return settings;
}

/**
 * "[API Error: got status: 503 Service Unavailable. {"error":{"code":503,"message":"The model is
 * overloaded. Please try again later.","status":"UNAVAILABLE"}}]" and the same for a 500 (INTERNAL).
 */
export function geminiOutage(text: string): string | null {
  return firstMatch(text, [
    /[^\n]*\b(?:status:? 5\d\d\b|"code":\s*5\d\d\b)[^\n]*/,
    /[^\n]*(?:"status":\s*"(?:UNAVAILABLE|INTERNAL)"|\bmodel is overloaded)[^\n]*/i,
    CONNECTION_FAILURE,
  ]);
}

/**
 * Gemini's terminal quota errors (`classifyGoogleError` in the CLI's bundle): "You have exhausted
 * your daily quota on this model.", "You have exhausted your capacity on this model. Your quota
 * will reset after 2h3m4s.", with "Suggested retry after 41s." or "Please retry in 41.8s." when known.
 */
export function geminiQuota(text: string, now: Date): QuotaHit | null {
  const hit = /You have exhausted your (?:daily quota|capacity)[^\n]*|Quota exceeded for quota metric[^\n]*|RESOURCE_EXHAUSTED[^\n]*/.exec(
    text,
  );
  if (!hit) return null;
  const after = /(?:reset after|retry after|retry in) (\d+h)?(\d+m)?([\d.]+s)?/i.exec(text);
  return { message: hit[0].trim(), resetAt: after ? afterDuration((after[1] ?? '') + (after[2] ?? '') + (after[3] ?? ''), now) : null };
}
