// opencode (`opencode-ai`): `opencode run --format json` headless, JSON events on stdout, canopy's MCP
// server added through OPENCODE_CONFIG_CONTENT (merged into any the user sets), token read by `{env:…}`.
import { jsonLines, numberOrNull } from './json-lines';
import type { AgentAdapter, AgentInvocation, AgentRun, PlatformSettings } from './types';

export const opencode: AgentAdapter = {
  binary: 'opencode',
  invocation(run: AgentRun, settings: PlatformSettings): AgentInvocation {
    const model = run.model ?? settings.model;
    const given = settings.env.OPENCODE_CONFIG_CONTENT ? (JSON.parse(settings.env.OPENCODE_CONFIG_CONTENT) as Record<string, unknown>) : {};
    const canopy = { type: 'remote', url: run.mcpUrl, headers: { Authorization: `Bearer {env:${run.tokenEnv}}` }, oauth: false };
    const content = { ...given, mcp: { ...(given.mcp ?? {}), canopy } };
    return {
      command: settings.command ?? 'opencode',
      args: ['run', '--format', 'json', '--auto', ...(model ? ['--model', model] : []), ...settings.args, '--', run.prompt],
      env: { OPENCODE_CONFIG_CONTENT: JSON.stringify(content) },
      files: {},
    };
  },
  read(stdout) {
    const events = jsonLines(stdout);
    const parts = events.map((e) => (e.part ?? {}) as Record<string, unknown>);
    const texts = parts.filter((p) => p.type === 'text' && typeof p.text === 'string');
    const steps = parts.filter((p) => p.type === 'step-finish');
    const tokens = (key: 'input' | 'output') =>
      steps.reduce((total, step) => total + (numberOrNull((step.tokens as Record<string, unknown> | undefined)?.[key]) ?? 0), 0);
    return {
      finalMessage: (texts.at(-1)?.text as string | undefined) ?? null,
      usage: steps.length
        ? {
            input_tokens: tokens('input'),
            output_tokens: tokens('output'),
            cost_usd: steps.reduce((t, s) => t + (numberOrNull(s.cost) ?? 0), 0),
          }
        : null,
      model: null,
    };
  },
  // opencode waits out a provider's 429 itself (retry-after, unbounded), so no limit message reaches its output.
  quota: () => null,
};
