// config.json's platforms: a built-in tuned without restating it, a custom command by argv, and every
// bad value refused with its field and the fix.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { loadPlatforms, platformModel } from '../../src/agents';
import type { AgentRun } from '../../src/agents/types';
import { CANOPY_BIN } from '../../src/project';
import { tempDir } from '../helpers/store';

function homeWith(config: unknown): string {
  const home = tempDir();
  writeFileSync(path.join(home, 'config.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return home;
}

const RUN: AgentRun = {
  prompt: 'do it',
  promptFile: '/runs/r1/prompt.md',
  model: null,
  workdir: '/work/dir',
  runDir: '/runs/r1',
  privateHomeDir: '/agent-homes/loop/node',
  mcpUrl: 'http://127.0.0.1:4321/mcp',
  tokenEnv: 'CANOPY_RUN_TOKEN',
  asRoot: true,
};

/** canopy's stdio MCP server for RUN: `canopy node mcp`, told where to keep reports and where to send them. */
const STDIO_SERVER = { command: process.execPath, args: [CANOPY_BIN, 'node', 'mcp'] };
const STDIO_ENV = { CANOPY_MCP_URL: RUN.mcpUrl, CANOPY_RUN_DIR: RUN.runDir };

function invocationOf(home: string, name: string, run: Partial<AgentRun> = {}) {
  const platform = loadPlatforms(home).get(name)!;
  return platform.adapter.invocation({ ...RUN, ...run, model: platformModel(platform, run.model) }, platform.settings);
}

describe('agent platform configuration', () => {
  it('tunes a built-in in place: its env, extra args and default model join the adapter’s own invocation', () => {
    const home = homeWith({ platforms: { claude: { env: { ANTHROPIC_BASE_URL: 'http://proxy' }, args: ['--verbose'], model: 'opus' } } });
    const platform = loadPlatforms(home).get('claude')!;
    assert.deepEqual(platform.settings.env, { ANTHROPIC_BASE_URL: 'http://proxy' });
    const { command, args, env, files } = invocationOf(home, 'claude');
    assert.equal(command, 'claude');
    assert.deepEqual(args.slice(-3), ['--model', 'opus', '--verbose']);
    assert.ok(args.includes('--dangerously-skip-permissions'));
    assert.deepEqual(env, { IS_SANDBOX: '1' });
    assert.deepEqual(JSON.parse(files['claude-mcp.json']).mcpServers.canopy, {
      type: 'stdio',
      ...STDIO_SERVER,
      env: { ...STDIO_ENV, CANOPY_RUN_TOKEN: '${CANOPY_RUN_TOKEN}' },
      alwaysLoad: true,
    });
    assert.deepEqual(invocationOf(home, 'claude', { model: 'sonnet', asRoot: false }).args.slice(-3, -1), ['--model', 'sonnet']);
    assert.deepEqual(invocationOf(home, 'claude', { asRoot: false }).env, {});
  });

  it('gives every built-in the prompt on standard input from its file, and none in argv, where any local user reads it', () => {
    const home = homeWith({});
    for (const name of loadPlatforms(home).keys()) {
      const { args, stdinFile } = invocationOf(home, name, { prompt: 'a planted secret' });
      assert.equal(stdinFile, RUN.promptFile, name);
      assert.ok(!args.some((arg) => arg.includes('a planted secret')), `${name}: ${args.join(' ')}`);
    }
  });

  it('keeps every other built-in as shipped, with canopy’s MCP server wired for the run', () => {
    const home = homeWith({});
    assert.deepEqual([...loadPlatforms(home).keys()], ['claude', 'codex', 'opencode', 'gemini']);
    const codexArgs = invocationOf(home, 'codex').args;
    assert.ok(codexArgs.includes(`mcp_servers.canopy.command=${JSON.stringify(process.execPath)}`));
    assert.ok(codexArgs.includes(`mcp_servers.canopy.args=${JSON.stringify(STDIO_SERVER.args)}`));
    assert.ok(codexArgs.includes(`mcp_servers.canopy.env={CANOPY_MCP_URL="${RUN.mcpUrl}",CANOPY_RUN_DIR="/runs/r1"}`));
    assert.ok(codexArgs.includes('mcp_servers.canopy.env_vars=["CANOPY_RUN_TOKEN"]'));
    const opencode = JSON.parse(invocationOf(home, 'opencode').env.OPENCODE_CONFIG_CONTENT);
    assert.deepEqual(opencode.mcp.canopy, {
      type: 'local',
      command: [STDIO_SERVER.command, ...STDIO_SERVER.args],
      environment: { ...STDIO_ENV, CANOPY_RUN_TOKEN: '{env:CANOPY_RUN_TOKEN}' },
    });
    const gemini = invocationOf(home, 'gemini').home!;
    assert.equal(gemini.variable, 'GEMINI_CLI_HOME');
    assert.deepEqual((gemini.settings({}).mcpServers as Record<string, unknown>).canopy, {
      ...STDIO_SERVER,
      env: { ...STDIO_ENV, CANOPY_RUN_TOKEN: '$CANOPY_RUN_TOKEN' },
    });
  });

  it('merges the MCP server into an OPENCODE_CONFIG_CONTENT the user gives', () => {
    const home = homeWith({
      platforms: { opencode: { env: { OPENCODE_CONFIG_CONTENT: '{"provider":{"x":{}},"mcp":{"mine":{"type":"local"}}}' } } },
    });
    const content = JSON.parse(invocationOf(home, 'opencode').env.OPENCODE_CONFIG_CONTENT);
    assert.deepEqual(Object.keys(content.mcp), ['mine', 'canopy']);
    assert.deepEqual(content.provider, { x: {} });
    assert.equal(content.snapshot, false, 'snapshots off when the user says nothing of them');
  });

  it('leaves opencode’s snapshots and gemini’s relaunch on when the user’s env asks for them', () => {
    const asked = homeWith({
      platforms: {
        opencode: { env: { OPENCODE_CONFIG_CONTENT: '{"snapshot":true}' } },
        gemini: { env: { GEMINI_CLI_NO_RELAUNCH: '' } },
      },
    });
    assert.equal(JSON.parse(invocationOf(asked, 'opencode').env.OPENCODE_CONFIG_CONTENT).snapshot, true);
    assert.deepEqual(invocationOf(asked, 'gemini').env, {});
    assert.deepEqual(invocationOf(homeWith({}), 'gemini').env, { GEMINI_CLI_NO_RELAUNCH: 'true' });
  });

  it('runs a custom argv with {{prompt_file}} filled with the file holding the prompt, and no standard input', () => {
    const home = homeWith({ platforms: { mine: { argv: ['my-agent', '--prompt-file', '{{prompt_file}}'] } } });
    const { args, stdinFile } = invocationOf(home, 'mine');
    assert.deepEqual(args, ['--prompt-file', RUN.promptFile]);
    assert.equal(stdinFile, undefined);
  });

  it('runs a custom argv with {{mcp_url}}, {{run_token_env}} and {{mcp_config}} filled, dropping groups without a value', () => {
    const home = homeWith({
      platforms: {
        mine: {
          argv: [
            'my-agent',
            ['--model', '{{model}}'],
            '--mcp',
            '{{mcp_url}}',
            '--token-env={{run_token_env}}',
            '{{mcp_config}}',
            '{{prompt}}',
          ],
        },
      },
    });
    const { command, args, files } = invocationOf(home, 'mine');
    assert.equal(command, 'my-agent');
    assert.deepEqual(args, ['--mcp', RUN.mcpUrl, '--token-env=CANOPY_RUN_TOKEN', '/runs/r1/mcp-config.json', 'do it']);
    assert.deepEqual(JSON.parse(files['mcp-config.json']).mcpServers.canopy.env, { ...STDIO_ENV, CANOPY_RUN_TOKEN: '${CANOPY_RUN_TOKEN}' });
  });

  const refusals: [string, unknown, RegExp][] = [
    ['a file that is not JSON', '{"platforms": ', /\(file\): is not valid JSON/],
    [
      'an unknown platform without argv',
      { platforms: { mine: { env: {} } } },
      /platforms\.mine: 'mine' is not a built-in platform .*give "argv"/,
    ],
    [
      'argv beside command',
      { platforms: { claude: { argv: ['x'], command: 'y' } } },
      /platforms\.claude\.argv: give either argv .* not both/,
    ],
    [
      'an unknown placeholder',
      { platforms: { mine: { argv: ['x', '{{promt}}'] } } },
      /platforms\.mine\.argv\.1: unknown placeholder \{\{promt\}\}; use \{\{prompt\}\}/,
    ],
    ['an empty argv', { platforms: { mine: { argv: [] } } }, /platforms\.mine\.argv: argv needs at least the command/],
    [
      'a bad environment name',
      { platforms: { claude: { env: { 'BAD-NAME': 'x' } } } },
      /platforms\.claude\.env\.BAD-NAME.*letters, digits and "_"/,
    ],
    ['an unknown field', { platforms: { claude: { modle: 'x' } } }, /platforms\.claude.*modle/],
    ['a non-string arg', { platforms: { codex: { args: [1] } } }, /platforms\.codex\.args\.0/],
    ['an empty model', { platforms: { gemini: { model: '' } } }, /platforms\.gemini\.model/],
  ];
  for (const [what, config, message] of refusals) {
    it(`refuses ${what}, naming the field`, () => {
      assert.throws(
        () => loadPlatforms(homeWith(config)),
        (error: Error) => {
          assert.match(error.message, message);
          return true;
        },
      );
    });
  }
});
