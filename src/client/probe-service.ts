// A real probe of agent platforms: run each CLI once, headless, with a tiny prompt, and say whether it
// answered, is not installed, is misconfigured (with the CLI's own error line) or timed out.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { loadPlatforms, locateCommand, platformBinary, platformModel, type Platform } from '../agents';
import { lastJsonDocument } from '../agents/json-lines';
import { CanopyError } from '../domain/errors';
import { prepareLaunch } from '../agents/launch';
import { runInProcessGroup } from '../process/process-group';
import { openRunDirectory, removeRunDirectory, writeRunFile } from '../process/run-directory';

export type ProbeState = 'reachable' | 'not installed' | 'misconfigured' | 'timed out';

export interface PlatformProbe {
  name: string;
  state: ProbeState;
  /** The CLI's own error line when misconfigured, its answer when reachable, else what is missing. */
  detail: string;
  ms: number;
}

export const PROBE_PROMPT = 'Reply with the single word OK.';
export const DEFAULT_PROBE_TIMEOUT_MS = 60_000;
/** A probe has no run to report on: the CLIs get an endpoint that refuses connections, which they treat as an MCP server down. */
const NO_CALLBACK_URL = 'http://127.0.0.1:9/mcp';

export async function probePlatforms(home: string, names?: string[], timeoutMs = DEFAULT_PROBE_TIMEOUT_MS): Promise<PlatformProbe[]> {
  const platforms = loadPlatforms(home);
  const chosen = (names ?? [...platforms.keys()]).flatMap((name) => platforms.get(name) ?? []);
  return Promise.all(chosen.map((platform) => probePlatform(home, platform, timeoutMs)));
}

async function probePlatform(home: string, platform: Platform, timeoutMs: number): Promise<PlatformProbe> {
  const started = Date.now();
  const done = (state: ProbeState, detail: string): PlatformProbe => ({ name: platform.name, state, detail, ms: Date.now() - started });
  const binary = platformBinary(platform);
  if (!(await locateCommand(binary)))
    return done('not installed', `'${binary}' is not on PATH; install it or set "command" in config.json`);
  const id = `probe-${randomBytes(6).toString('hex')}`;
  const runDir = openRunDirectory(home, id);
  try {
    const launch = prepareLaunch(
      platform,
      {
        prompt: PROBE_PROMPT,
        promptFile: writeRunFile(runDir, 'prompt.md', PROBE_PROMPT),
        model: platformModel(platform, null),
        workdir: runDir,
        runDir,
        privateHomeDir: path.join(runDir, 'home'),
        mcpUrl: NO_CALLBACK_URL,
        tokenEnv: 'CANOPY_RUN_TOKEN',
        asRoot: process.getuid?.() === 0,
        probe: true,
      },
      { run: { CANOPY_RUN_TOKEN: 'probe' } },
    );
    const result = await runInProcessGroup(launch.command, launch.args, {
      cwd: runDir,
      env: launch.env,
      timeoutMs,
      stdinFile: launch.stdinFile,
    });
    if (result.spawnError) return done('not installed', result.spawnError);
    if (result.timedOut) return done('timed out', `no answer within ${Math.round(timeoutMs / 1000)} s`);
    const answer = platform.adapter.read(result.stdout, result.stderr).finalMessage;
    if (result.exitCode === 0) return done('reachable', (answer ?? result.stdout).trim().split('\n')[0] ?? '');
    return done('misconfigured', errorLine(answer, result.stdout, result.stderr) || `exited with code ${result.exitCode}`);
  } catch (error) {
    if (error instanceof CanopyError) return done('misconfigured', error.message);
    throw error;
  } finally {
    removeRunDirectory(home, id);
  }
}

/** The CLI's own words for what went wrong: its JSON error, its final message, or its last error-looking line. */
function errorLine(answer: string | null, stdout: string, stderr: string): string {
  const json = (lastJsonDocument(stderr) ?? lastJsonDocument(stdout))?.error as { message?: string } | undefined;
  if (json?.message) return json.message;
  if (answer) return answer.split('\n')[0];
  const lines = `${stderr}\n${stdout}`
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.find((line) => /error|invalid|unauthori[sz]ed|not found|unexpected/i.test(line)) ?? lines.at(-1) ?? '';
}
