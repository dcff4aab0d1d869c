// The real agent CLIs as a user would set them up against a model provider of their own, here the
// stand-in model API: each CLI's own base-URL and key settings, given through config.json's env,
// and each in a home of its own so nothing reaches the machine's real CLI state.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AGENT_TOOLS_BIN } from '../../src/agents/pinned';
import { openContext, type ClientContext } from '../../src/client/context';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import type { CanopyConfig } from '../../src/config';
import { after, before } from 'node:test';
import { childEnv, testConfig } from './engine';
import { spawnCanopy, waitForOutput, type CanopyProcess } from './processes';
import { check, loopWithSpecs, runsOf, scratchDir } from './loops';
import { startModelApi, type ModelApi, type ModelScript } from './model-api';

export const REAL_CLIS = ['claude', 'codex', 'opencode', 'gemini'] as const;
export type RealCli = (typeof REAL_CLIS)[number];

export function missingClis(): string | false {
  const missing = REAL_CLIS.filter((cli) => !existsSync(path.join(AGENT_TOOLS_BIN, cli)));
  return missing.length ? `${missing.join(', ')} not installed in ${AGENT_TOOLS_BIN}: run \`npm run setup:agents\`` : false;
}

/**
 * A scratch directory in `base`: by default the system's temporary directory, as CI and containers
 * make canopy homes (`CANOPY_HOME=$(mktemp -d)`), below a world-writable directory, where a CLI may
 * refuse files it takes for system-wide ones.
 */
export function scratchHomeDir(base = os.tmpdir()): string {
  mkdirSync(base, { recursive: true });
  return mkdtempSync(path.join(base, 'canopy-real-clis-'));
}

/** A directory in the user's own home, as a person's `~/.canopy` is. */
export const UNDER_USER_HOME = path.join(os.homedir(), '.cache', 'canopy-tests');

/** config.json's platforms for the four CLIs, pointed at `apiUrl`, with their homes under `dir`. */
export function realCliPlatforms(apiUrl: string, dir: string): Record<RealCli, Record<string, unknown>> {
  const home = (name: string) => {
    const at = path.join(dir, `${name}-home`);
    mkdirSync(at, { recursive: true, mode: 0o700 });
    return at;
  };
  const codexHome = home('codex');
  writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      'model_provider = "stand-in"',
      '[model_providers.stand-in]',
      'name = "stand-in"',
      `base_url = "${apiUrl}/v1"`,
      'env_key = "OPENAI_API_KEY"',
      'wire_api = "responses"',
      // One retry of a failing request or stream (the defaults are 4 and 5): canopy's infra_retries retry the node instead.
      'request_max_retries = 1',
      'stream_max_retries = 1',
      '',
    ].join('\n'),
  );
  const geminiHome = home('gemini');
  mkdirSync(path.join(geminiHome, '.gemini'), { mode: 0o700 });
  writeFileSync(
    path.join(geminiHome, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      // Two attempts at a failing request (the default is 10, 5 s to 30 s apart): canopy's infra_retries retry the node instead.
      general: { maxAttempts: 2 },
      // A user's own MCP allow list, which canopy's server must get through.
      mcp: { allowed: ['their-own-server'] },
    }),
  );
  const opencodeHome = home('opencode');
  const bin = (cli: RealCli) => path.join(AGENT_TOOLS_BIN, cli);
  return {
    claude: {
      command: bin('claude'),
      model: 'claude-sonnet-4-5',
      // One retry of a failing request (the default is 10): canopy's infra_retries retry the node instead.
      env: { HOME: home('claude'), ANTHROPIC_BASE_URL: apiUrl, ANTHROPIC_API_KEY: 'sk-ant-stand-in', CLAUDE_CODE_MAX_RETRIES: '1' },
    },
    codex: { command: bin('codex'), model: 'gpt-5', env: { CODEX_HOME: codexHome, OPENAI_API_KEY: 'sk-stand-in' } },
    opencode: {
      command: bin('opencode'),
      model: 'anthropic/claude-sonnet-4-5',
      env: {
        HOME: opencodeHome,
        XDG_CONFIG_HOME: path.join(opencodeHome, 'config'),
        XDG_DATA_HOME: path.join(opencodeHome, 'data'),
        XDG_CACHE_HOME: path.join(opencodeHome, 'cache'),
        XDG_STATE_HOME: path.join(opencodeHome, 'state'),
        ANTHROPIC_API_KEY: 'sk-ant-stand-in',
        OPENCODE_CONFIG_CONTENT: JSON.stringify({ provider: { anthropic: { options: { baseURL: `${apiUrl}/v1` } } } }),
      },
    },
    gemini: {
      command: bin('gemini'),
      model: 'gemini-2.5-pro',
      // TMPDIR: gemini leaves an error report file there after an API error.
      env: { HOME: geminiHome, TMPDIR: geminiHome, GEMINI_API_KEY: 'stand-in', GOOGLE_GEMINI_BASE_URL: apiUrl },
    },
  };
}

export interface RealCliSetup {
  api: ModelApi;
  config: CanopyConfig;
  ctx: ClientContext;
  close(): Promise<void>;
}

/** A stand-in model API and a private canopy home in `base` whose config.json points the four CLIs at it (on the tests' dev server unless told another). */
export async function openRealCliSetup(base?: string, temporalAddress?: string): Promise<RealCliSetup> {
  const api = await startModelApi();
  const dir = scratchHomeDir(base);
  // No test of the real CLIs stops a worker, so their workers keep the default heartbeat timeout: with the
  // tests' 3 s, heartbeats throttled to one per 2.4 s time out a live worker's runs whenever other test
  // files keep the machine busy for more than half a second, and each retry that adopts the agent costs
  // the test its backoff.
  const config = testConfig(path.join(dir, 'home'), {
    CANOPY_HEARTBEAT_TIMEOUT_SECONDS: '',
    ...(temporalAddress ? { TEMPORAL_ADDRESS: temporalAddress } : {}),
  });
  mkdirSync(config.home, { mode: 0o700 });
  writeFileSync(path.join(config.home, 'config.json'), JSON.stringify({ platforms: realCliPlatforms(api.url, dir) }));
  const ctx = await openContext(config);
  return {
    api,
    config,
    ctx,
    async close() {
      await ctx.close();
      await api.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One require_report agent node of `cli` on a loop of one spec, run to its end with `script` as what
 * the model does; `config` adds to the node's config or replaces it. The loop's result and its one node run.
 */
export async function runOneAgent(
  setup: RealCliSetup,
  cli: RealCli,
  script: ModelScript,
  config: Record<string, unknown> = {},
  workdir = scratchDir(),
) {
  setup.api.script(script);
  const node = {
    name: 'work',
    kind: 'agent',
    position: 1,
    config: { platform: cli, prompt_template: 'Do {{spec_name}}, then report with loop_complete_node.', require_report: true, ...config },
  };
  const loopId = await loopWithSpecs(setup.ctx, workdir, { nodes: [node] }, [{ name: 'the spec' }]);
  const started = Date.now();
  await startLoopRun(setup.ctx, loopId);
  const result = await waitForLoopRun(setup.ctx, loopId);
  const [run] = await runsOf(setup.ctx, loopId);
  return { loopId, result, run, workdir, ms: Date.now() - started };
}

/** A real-CLI setup in `base` with a `canopy worker` serving it, for the enclosing suite. */
export function useRealCliWorker(base?: string): { setup: () => RealCliSetup } {
  let setup: RealCliSetup;
  let worker: CanopyProcess;
  before(async () => {
    setup = await openRealCliSetup(base);
    worker = spawnCanopy(['worker'], childEnv(setup.config));
    await waitForOutput(worker, /Agents report to http:\/\/127\.0\.0\.1:\d+\/mcp/);
  });
  after(async () => {
    if (process.env.CANOPY_TEST_VERBOSE) console.log(worker?.output());
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await setup?.close();
  });
  return { setup: () => setup };
}

/** In round 1's prompt only: a request that carries it in round 2 resent round 1's turns. */
export const FULL_PROMPT_MARK = 'Implement the feature of';
/** In the tests' output only, so in round 2's prompt ({{previous_feedback}}, and a resume prompt's default) and nowhere in round 1. */
export const FEEDBACK_MARK = 'expected 42, got 41';

/** In the notes file only: a conversation that holds it has read the notes. */
export const NOTES_MARK = 'Notes for whoever implements the feature';

/** How each CLI's model reads a file: its own read tool, or codex's shell. */
const READ_FILE: Record<RealCli, (file: string) => { tool: string; args: Record<string, unknown> }> = {
  claude: (file) => ({ tool: 'Read', args: { file_path: file } }),
  codex: (file) => ({ tool: 'exec_command', args: { cmd: `cat ${file}` } }),
  opencode: (file) => ({ tool: 'read', args: { filePath: file } }),
  gemini: (file) => ({ tool: 'read_file', args: { file_path: file } }),
};

/**
 * A model that reports pass through canopy's tool for each prompt, then answers; given `notes`, a file the task
 * names, it first reads that unless its conversation already holds it.
 */
export const reportsPass = (cli: RealCli, notes?: string): ModelScript => ({
  action: { kind: 'tool', tool: 'loop_complete_node', args: { status: 'pass', output: `${cli} implemented it` } },
  final: 'Implemented.',
  ...(notes ? { reads: { ...READ_FILE[cli](notes), holds: NOTES_MARK } } : {}),
});

/** NOTES.md in `workdir`: about 6,000 tokens of notes a task names, as a real task names the files it is about. */
function writeNotes(workdir: string): string {
  const file = path.join(workdir, 'NOTES.md');
  const lines = Array.from({ length: 400 }, (_, index) => `- Step ${index + 1}: keep the feature's behaviour as the spec says.`);
  writeFileSync(file, `# ${NOTES_MARK}\n\n${lines.join('\n')}\n`);
  return file;
}

/**
 * An implement node of `cli` that resumes or not; in a fix loop, with tests that fail once, then pass (two rounds).
 * With `notes`, its task names NOTES.md in the workdir (`notes` then says where).
 */
export async function implementLoop(
  setup: RealCliSetup,
  cli: RealCli,
  { fixLoop, resume, notes = false }: { fixLoop: boolean; resume: boolean; notes?: boolean },
) {
  const workdir = scratchDir();
  const notesFile = notes ? writeNotes(workdir) : undefined;
  const implement = {
    name: 'implement',
    kind: 'agent',
    position: 1,
    config: {
      platform: cli,
      // As a fix loop's implementer is told: the task, and in a later round what the tests said.
      prompt_template: `${FULL_PROMPT_MARK} {{spec_name}}${notes ? ' that NOTES.md describes' : ''}.\n{{previous_feedback}}`,
      require_report: true,
      resume,
      timeout_minutes: 2,
    },
  };
  const tests = check('tests', 2, `test -f .tested && exit 0; touch .tested; echo "${FEEDBACK_MARK}"; exit 1`);
  const shape = {
    nodes: fixLoop ? [implement, tests] : [implement],
    edges: fixLoop
      ? [
          { source: 'implement', target: 'tests' },
          { source: 'tests', target: 'implement', condition: 'fail', type: 'loopback' },
        ]
      : [],
  };
  const loopId = await loopWithSpecs(setup.ctx, workdir, shape, [{ name: 'the spec' }]);
  return { loopId, workdir, notes: notesFile };
}
