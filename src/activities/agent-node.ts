// Agent nodes: render the prompt, spawn the platform's CLI in its own process group, judge exit and self-report.
import { createHash, randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { DEFAULT_AGENT_TIMEOUT_MINUTES } from '../domain/defaults';
import { AgentConfig } from '../domain/node';
import { renderTemplate } from '../graph/templates';
import { agentVerdict } from '../graph/verdicts';
import { getNodeRun, updateNodeRun } from '../store/node-runs-repository';
import type { ActivityDeps } from './deps';
import type { Execution, ExecutionResult } from './execution';
import { agentPrompt } from './large-values';
import { loadPlatforms, renderArgv } from './platforms';
import { runInProcessGroup } from './process-group';

export function hashRunToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export async function executeAgent(deps: ActivityDeps, execution: Execution): Promise<ExecutionResult> {
  const { scene, run } = execution;
  const config = AgentConfig.parse(scene.node.config);
  const prompt = renderTemplate(config.prompt_template, execution.values);
  await execution.recordInput(prompt);
  const platforms = loadPlatforms(deps.home);
  if (!config.platform)
    return refuse(
      `Node '${scene.node.name}' has no platform; set config.platform with loop_update_node (known: ${Object.keys(platforms).join(', ')}).`,
    );
  const platform = platforms[config.platform];
  if (!platform)
    return refuse(
      `Unknown platform '${config.platform}'; known: ${Object.keys(platforms).join(', ')}. Add it under "platforms" in ${path.join(deps.home, 'config.json')}.`,
    );

  const token = randomBytes(24).toString('hex');
  await updateNodeRun(deps.db, run.id, { run_token_hash: hashRunToken(token) });
  const mcpConfig = deps.mcpUrl ? writeMcpConfig(run.id, deps.mcpUrl, token) : '';
  const ownLimit = config.timeout_minutes ?? DEFAULT_AGENT_TIMEOUT_MINUTES;
  const straggler = execution.stragglerMinutes !== null && execution.stragglerMinutes < ownLimit;
  const limitMinutes = straggler ? execution.stragglerMinutes! : ownLimit;
  const inline = agentPrompt({ home: deps.home, nodeRunId: run.id }, prompt);
  const [command, ...args] = renderArgv(platform, {
    prompt: inline.prompt,
    model: config.model ?? '',
    mcp_config: mcpConfig,
    workdir: scene.loop.workdir,
  });
  try {
    const result = await runInProcessGroup(command, args, {
      cwd: scene.loop.workdir,
      env: {
        ...process.env,
        ...platform.env,
        ...inline.env,
        CANOPY_RUN_ID: run.id,
        CANOPY_RUN_TOKEN: token,
        CANOPY_MCP_URL: deps.mcpUrl ?? '',
        TEMPORAL_ADDRESS: deps.temporalAddress,
        CANOPY_HOME: deps.home,
        ...(deps.databaseUrl ? { CANOPY_DATABASE_URL: deps.databaseUrl } : {}),
      },
      timeoutMs: limitMinutes * 60_000,
      signal: Context.current().cancellationSignal,
      onSpawn: execution.recordProcessGroup,
      onTick: () => Context.current().heartbeat(),
    });
    const reported = await getNodeRun(deps.db, run.id);
    const report = reported?.reported_status ? { status: reported.reported_status, output: reported.reported_output } : null;
    const verdict = agentVerdict({ ...result, limitMinutes, straggler }, report, config.require_report ?? false);
    return { ...result, verdict, unreported: report === null };
  } finally {
    if (mcpConfig) rmSync(mcpConfig, { force: true });
  }
}

/** A config problem found at run time: a deterministic fail, never an infrastructure retry. */
function refuse(reason: string): ExecutionResult {
  return {
    stdout: '',
    stderr: reason,
    exitCode: null,
    cancelled: false,
    verdict: { outcome: 'fail', failureKind: 'spawn_error', reason },
    unreported: true,
  };
}

/** The MCP client config handed to the agent: canopy's server, authorised by this run's token only. */
function writeMcpConfig(runId: string, mcpUrl: string, token: string): string {
  const file = path.join(os.tmpdir(), `canopy-mcp-${runId}.json`);
  const config = { mcpServers: { canopy: { type: 'http', url: mcpUrl, headers: { Authorization: `Bearer ${token}` } } } };
  writeFileSync(file, JSON.stringify(config), { mode: 0o600 });
  return file;
}
