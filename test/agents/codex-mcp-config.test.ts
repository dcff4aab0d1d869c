// The real codex CLI reads canopy's per-run MCP overrides as meant: canopy's stdio server for the run, the
// token passed on by variable name, a start-up allowance longer than codex's 10 s default, and a server it waits for.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { codex, MCP_STARTUP_TIMEOUT_SECONDS } from '../../src/agents/codex';
import { AGENT_TOOLS_BIN } from '../../src/agents/pinned';
import { CANOPY_BIN } from '../../src/project';
import { scratchHomeDir } from '../helpers/agent-clis';

const CODEX = path.join(AGENT_TOOLS_BIN, 'codex');
const skip = existsSync(CODEX) ? false : `codex not installed in ${AGENT_TOOLS_BIN}: run \`npm run setup:agents\``;

/** codex run with canopy's arguments for a run whose endpoint is `mcpUrl`, in a scratch CODEX_HOME. */
function runCodex(
  mcpUrl: string,
  extra: (args: string[]) => string[],
  env: Record<string, string | undefined> = { CANOPY_RUN_TOKEN: 'unused' },
) {
  const dir = scratchHomeDir();
  const codexHome = path.join(dir, 'codex-home');
  mkdirSync(codexHome, { mode: 0o700 });
  try {
    const { args } = codex.invocation(
      {
        prompt: 'unused',
        promptFile: path.join(dir, 'prompt.md'),
        model: null,
        workdir: dir,
        runDir: dir,
        privateHomeDir: path.join(dir, 'home'),
        mcpUrl,
        tokenEnv: 'CANOPY_RUN_TOKEN',
        asRoot: false,
      },
      { command: null, args: [], env: {}, model: null },
    );
    return spawnSync(CODEX, extra(args), {
      encoding: 'utf8',
      cwd: dir,
      env: { ...process.env, CODEX_HOME: codexHome, OPENAI_API_KEY: 'unused', ...env },
      // The prompt, on standard input as canopy gives it.
      input: 'unused',
      timeout: 30_000,
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

it('codex reads canopy’s MCP server for the run: `canopy node mcp`, its token variable and a 60 s start-up allowance', { skip }, () => {
  const result = runCodex('http://127.0.0.1:9/mcp/run', (args) => [
    ...args.flatMap((arg, i) => (args[i - 1] === '-c' ? ['-c', arg] : [])),
    'mcp',
    'get',
    'canopy',
    '--json',
  ]);
  assert.equal(result.status, 0, result.stderr);
  const server = JSON.parse(result.stdout) as {
    transport: { type: string; command: string; args: string[]; env: Record<string, string>; env_vars: string[] };
    startup_timeout_sec: number;
  };
  assert.deepEqual(
    [server.transport.type, server.transport.command, server.transport.args],
    ['stdio', process.execPath, [CANOPY_BIN, 'node', 'mcp']],
  );
  assert.equal(server.transport.env.CANOPY_MCP_URL, 'http://127.0.0.1:9/mcp/run');
  assert.deepEqual(server.transport.env_vars, ['CANOPY_RUN_TOKEN']);
  assert.equal(server.startup_timeout_sec, MCP_STARTUP_TIMEOUT_SECONDS);
});

// codex starts its first turn without waiting for a server that is not required: a slow server left the model without canopy's tools.
it(
  'codex waits for canopy’s MCP server before its first turn: a server that cannot start stops it before any model request',
  { skip },
  () => {
    // Without its run token `canopy node mcp` refuses to serve.
    const result = runCodex('http://127.0.0.1:9/mcp/run', (args) => args, { CANOPY_RUN_TOKEN: undefined });
    assert.notEqual(result.status, 0, result.stdout);
    assert.match(result.stderr, /required MCP servers failed to initialize: canopy/);
    assert.doesNotMatch(result.stdout, /turn\.started/);
  },
);
