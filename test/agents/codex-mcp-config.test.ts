// The real codex CLI reads canopy's per-run MCP overrides as meant: the run-token endpoint, the token by
// variable name, and a start-up allowance longer than codex's 10 s default.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { codex, MCP_STARTUP_TIMEOUT_SECONDS } from '../../src/agents/codex';
import { AGENT_TOOLS_BIN } from '../../src/agents/pinned';
import { scratchHomeDir } from '../helpers/agent-clis';

const CODEX = path.join(AGENT_TOOLS_BIN, 'codex');
const skip = existsSync(CODEX) ? false : `codex not installed in ${AGENT_TOOLS_BIN}: run \`npm run setup:agents\``;

it('codex reads canopy’s MCP server for the run: its URL, its token variable and a 60 s start-up allowance', { skip }, () => {
  const dir = scratchHomeDir();
  const codexHome = path.join(dir, 'codex-home');
  mkdirSync(codexHome, { mode: 0o700 });
  try {
    const { args } = codex.invocation(
      {
        prompt: 'unused',
        model: null,
        workdir: dir,
        runDir: dir,
        mcpUrl: 'http://127.0.0.1:9/mcp/run',
        tokenEnv: 'CANOPY_RUN_TOKEN',
        asRoot: false,
      },
      { command: null, args: [], env: {}, model: null },
    );
    const overrides = args.flatMap((arg, i) => (args[i - 1] === '-c' ? ['-c', arg] : []));
    const result = spawnSync(CODEX, [...overrides, 'mcp', 'get', 'canopy', '--json'], {
      encoding: 'utf8',
      env: { ...process.env, CODEX_HOME: codexHome },
      timeout: 30_000,
    });
    assert.equal(result.status, 0, result.stderr);
    const server = JSON.parse(result.stdout) as {
      transport: { type: string; url: string; bearer_token_env_var: string };
      startup_timeout_sec: number;
    };
    assert.equal(server.transport.url, 'http://127.0.0.1:9/mcp/run');
    assert.equal(server.transport.bearer_token_env_var, 'CANOPY_RUN_TOKEN');
    assert.equal(server.startup_timeout_sec, MCP_STARTUP_TIMEOUT_SECONDS);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
