// Claude Code (`@anthropic-ai/claude-code`): `claude -p` headless, prompt on stdin, JSON result on stdout, canopy's MCP
// server from a per-run --mcp-config file whose env names the token variable (claude expands it). The result's
// session_id is continued by `--resume <id>`, which claude finds among the sessions of the directory it runs in.
import { lastJsonDocument, numberOrNull, stringOrNull } from './json-lines';
import { mcpConfigFile } from './mcp-config';
import { firstMatch } from './outage';
import { datedClockTime, nextClockTime, resetTimeOf } from './reset-time';
import type { AgentAdapter, AgentInvocation, AgentRun, PlatformSettings, QuotaHit } from './types';

const MCP_CONFIG = 'claude-mcp.json';

export const claude: AgentAdapter = {
  binary: 'claude',
  invocation(run: AgentRun, settings: PlatformSettings): AgentInvocation {
    return {
      command: settings.command ?? 'claude',
      args: [
        '-p',
        '--output-format',
        'json',
        '--dangerously-skip-permissions',
        '--mcp-config',
        `${run.runDir}/${MCP_CONFIG}`,
        ...(run.model ? ['--model', run.model] : []),
        ...(run.session ? ['--resume', run.session] : []),
        ...settings.args,
      ],
      // `-p` with no prompt argument reads it from standard input.
      stdinFile: run.promptFile,
      // As root claude refuses --dangerously-skip-permissions unless told it runs in a sandbox.
      env: run.asRoot ? { IS_SANDBOX: '1' } : {},
      files: { [MCP_CONFIG]: mcpConfigFile(run) },
    };
  },
  read(stdout) {
    const result = lastJsonDocument(stdout);
    if (!result || result.type !== 'result') return { finalMessage: null, usage: null, model: null };
    const usage = (result.usage ?? {}) as Record<string, unknown>;
    const input = ['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens']
      .map((key) => numberOrNull(usage[key]))
      .filter((n) => n !== null);
    return {
      finalMessage: typeof result.result === 'string' ? result.result : null,
      usage: {
        input_tokens: input.length ? input.reduce((a, b) => a + b, 0) : null,
        cached_input_tokens: numberOrNull(usage.cache_read_input_tokens),
        output_tokens: numberOrNull(usage.output_tokens),
        cost_usd: numberOrNull(result.total_cost_usd),
      },
      model: Object.keys(result.modelUsage ?? {})[0] ?? null,
    };
  },
  quota(stdout, stderr, now) {
    const result = lastJsonDocument(stdout);
    const text = `${typeof result?.result === 'string' ? result.result : stdout}\n${stderr}`;
    return claudeQuota(text, result?.api_error_status === 429, now);
  },
  outage(stdout, stderr) {
    const result = lastJsonDocument(stdout);
    const text = `${typeof result?.result === 'string' ? result.result : stdout}\n${stderr}`;
    return claudeOutage(text, numberOrNull(result?.api_error_status));
  },
  session: {
    idOf: (stdout) => stringOrNull(lastJsonDocument(stdout)?.session_id),
    // "No conversation found with session ID: <id>" on stderr, exit 1, before any request.
    refusal: (stdout, stderr) => firstMatch(`${stdout}\n${stderr}`, [/No conversation found with session ID[^\n]*/]),
  },
};

/**
 * "API Error: 529 {"type":"error","error":{"type":"overloaded_error",…" (anthropics/claude-code#39745),
 * "API Error: 529 Overloaded. This is a server-side issue…" (claude 2.1.158, #67531), "API Error:
 * Repeated 529 Overloaded errors", "API Error: 500 …", and "API Error: Connection error." when the
 * API cannot be reached; the JSON result also carries the status as api_error_status.
 */
export function claudeOutage(text: string, status: number | null): string | null {
  const said = firstMatch(text, [/API Error:? \(?(?:5\d\d\b|Repeated 529|Connection error)[^\n]*/, /[^\n]*\boverloaded_error\b[^\n]*/]);
  if (said) return said;
  return status !== null && status >= 500 ? `API Error: ${status}` : null;
}

/**
 * Subscription limits print "You've hit your session limit · resets 3pm (Europe/Paris)" (claude 2.x,
 * `hJ`/`kfp` in the packaged binary), older releases "Claude AI usage limit reached|<epoch seconds>";
 * an API key's 429 prints "API Error: Request rejected (429) · …rate limit…" with no reset time.
 */
export function claudeQuota(text: string, status429: boolean, now: Date): QuotaHit | null {
  const hit = /You(?:'|\u2019)ve hit your [\w ]*limit(?: \u00b7 resets ([^\n(\u00b7]+?))?(?:\s*\(([\w/+-]+)\))?\s*(?:\u00b7|$|\n)/m.exec(
    text,
  );
  if (hit) {
    const when = hit[1]?.trim() ?? '';
    const dated = /^(.+?),\s*(\d{1,2}(?::\d{2})?\s*[ap]m)$/i.exec(when);
    const resetAt = dated ? datedClockTime(dated[1], dated[2], hit[2] ?? null, now) : nextClockTime(when, hit[2] ?? null, now);
    return { message: hit[0].trim(), resetAt };
  }
  const older = /Claude usage limit reached\. Your limit will reset at [^\n]*/.exec(text);
  if (older) return { message: older[0].trim(), resetAt: resetTimeOf(older[0], now) };
  const legacy = /Claude AI usage limit reached\|(\d{9,11})/.exec(text);
  if (legacy) return { message: 'Claude AI usage limit reached', resetAt: new Date(Number(legacy[1]) * 1000) };
  const limited = /API Error: [^\n]*\b429\b[^\n]*/.exec(text);
  if (limited || status429) return { message: limited?.[0] ?? 'API Error 429', resetAt: null };
  return null;
}
