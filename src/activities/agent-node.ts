// Agent nodes: render the prompt (the reporting contract appended, a recovery note first on a rerun), ask the platform's adapter how to run
// its CLI for this run (continuing an earlier run's session with the resume prompt, when the node resumes), spawn it in its own
// process group, then let the adapter read its output, usage, session and limits. CLI-agnostic.
import path from 'node:path';
import { Context } from '@temporalio/activity';
import { loadPlatforms, platformModel, type Platform } from '../agents';
import { prepareLaunch } from '../agents/launch';
import { withRecoveryNote } from '../agents/recovery-note';
import { withReportingContract } from '../agents/reporting';
import { resumeAfterReset } from '../agents/reset-time';
import type { AgentReading, QuotaHit } from '../agents/types';
import { DEFAULT_AGENT_TIMEOUT_MINUTES } from '../domain/defaults';
import { AgentConfig, DEFAULT_RESUME_PROMPT } from '../node-kinds/agent';
import { withHumanFeedback } from '../graph/templates';
import { agentVerdict, type Verdict } from '../graph/verdicts';
import { hashRunToken, newRunToken } from '../run-token';
import { getNodeRun, sessionTokensElsewhere, updateNodeRun } from '../store/node-runs-repository';
import type { GroupRunResult } from '../process/process-group';
import { agentHomePath, runDirectoryPath } from '../process/run-directory';
import { readKeptBlocker, readKeptReport } from '../process/run-reports';
import { startSupervised, type SupervisionOptions } from '../process/supervision';
import { traceAgentProcess } from '../telemetry/spans';
import { writeCanopyShim } from './canopy-shim';
import type { ActivityDeps } from './deps';
import { idleLimit, superviseInRunDirectory, type Execution, type ExecutionResult } from './execution';
import { agentPrompt } from './large-values';
import { resumePlan, type ResumePlan } from './agent-resume';

const TOKEN_ENV = 'CANOPY_RUN_TOKEN';

export async function executeAgent(deps: ActivityDeps, execution: Execution): Promise<ExecutionResult> {
  const { scene, run } = execution;
  const config = AgentConfig.parse(scene.node.config);
  const prompt = withHumanFeedback(config.prompt_template, execution.values, execution.humanFeedback);
  await execution.recordInput(prompt);
  const platforms = loadPlatforms(deps.home);
  if (!config.platform)
    return refuse(
      `Node '${scene.node.name}' has no platform; set config.platform with loop_update_node (known: ${[...platforms.keys()].join(', ')}).`,
    );
  const platform = platforms.get(config.platform);
  if (!platform)
    return refuse(
      `Unknown platform '${config.platform}'; known: ${[...platforms.keys()].join(', ')}. Add it under "platforms" in ${path.join(deps.home, 'config.json')}.`,
    );

  const ownLimit = config.timeout_minutes ?? DEFAULT_AGENT_TIMEOUT_MINUTES;
  const straggler = execution.stragglerMinutes !== null && execution.stragglerMinutes < ownLimit;
  const limitMinutes = straggler ? execution.stragglerMinutes! : ownLimit;
  const model = platformModel(platform, config.model);
  const plan = await resumePlan(deps, run, config, platform, scene.loop.workdir);
  const resumePrompt = withHumanFeedback(config.resume_prompt ?? DEFAULT_RESUME_PROMPT, execution.values, execution.humanFeedback);
  const start = (supervision: SupervisionOptions) =>
    startAgent(deps, { execution, platform, model, prompts: { cold: prompt, resumed: resumePrompt }, plan, supervision });
  const limits = { minutes: limitMinutes, idleMinutes: idleLimit(execution, config.idle_timeout_minutes) };
  const judge = async (result: GroupRunResult): Promise<ExecutionResult> => {
    const reading = platform.adapter.read(result.stdout, result.stderr);
    const stdout = reading.finalMessage ?? result.stdout;
    const report = await takeReport(deps, run.id);
    const elapsedMs = Date.now() - Date.parse(run.started_at);
    let verdict = agentVerdict({ ...result, stdout, limitMinutes, straggler, elapsedMs }, report, config.require_report ?? false);
    // A usage limit may leave no stdout (gemini says it on stderr), which would read as an early crash.
    const failedTheWork = verdict.failureKind === 'exit_code' || verdict.failureKind === 'infra_crash';
    const quota = failedTheWork ? platform.adapter.quota(result.stdout, result.stderr, new Date()) : null;
    if (quota) verdict = await quotaVerdict(deps, scene.loop.id, quota);
    else verdict = outageVerdict(verdict, platform.adapter.outage(result.stdout, result.stderr));
    const session = platform.adapter.session?.idOf(result.stdout, result.stderr) ?? null;
    await recordSession(deps, execution, session);
    await recordUsage(deps, run.id, await ownUsage(deps, run.id, reading, platform.adapter.session?.runningTotals ? session : null));
    return { ...result, stdout, verdict, unreported: report === null };
  };
  return traceAgentProcess({ platform: platform.name, model }, () => superviseInRunDirectory(deps, execution, limits, start, judge));
}

interface AgentStart {
  execution: Execution;
  platform: Platform;
  model: string | null;
  /** The full prompt a cold start is given, and what a resumed session is told. */
  prompts: { cold: string; resumed: string };
  plan: ResumePlan;
  supervision: SupervisionOptions;
}

/**
 * Starts the CLI as the plan says; a session the CLI says it cannot continue (it no longer has it, or
 * refuses) is given up for a cold start with the full prompt, the CLI's words kept as the reason.
 */
async function startAgent(deps: ActivityDeps, start: AgentStart): Promise<GroupRunResult> {
  const { plan, platform } = start;
  if (plan.session === null) return launchAgent(deps, start, plan);
  const resumed = await launchAgent(deps, start, plan);
  // Every CLI exits non-zero when it refuses a session; a run that went on may have quoted such words.
  const refused = !resumed.cancelled && resumed.exitCode !== 0;
  const refusal = refused ? (platform.adapter.session?.refusal(resumed.stdout, resumed.stderr) ?? null) : null;
  if (refusal === null) return resumed;
  return launchAgent(deps, start, { session: null, coldReason: `${platform.name} could not continue session ${plan.session}: ${refusal}` });
}

/** Gives the run its token, prepares the CLI's launch (cold, or continuing a session), and starts it under its supervisor. */
async function launchAgent(deps: ActivityDeps, start: AgentStart, launchAs: ResumePlan): Promise<GroupRunResult> {
  const { execution, platform, model, supervision } = start;
  const { run, scene } = execution;
  const token = newRunToken();
  const prompt = launchAs.session === null ? start.prompts.cold : start.prompts.resumed;
  await execution.recordInput(prompt);
  await updateNodeRun(deps.db, run.id, {
    run_token_hash: hashRunToken(token),
    executed_platform: platform.name,
    executed_model: model,
    resumed: launchAs.session !== null,
    cold_start_reason: launchAs.coldReason,
  });
  // A run that moved an attempt to its history is running again after that attempt's process was lost.
  const task = run.attempts.length > 0 ? withRecoveryNote(prompt) : prompt;
  const inline = agentPrompt({ home: deps.home, nodeRunId: run.id }, withReportingContract(task));
  const launch = prepareLaunch(
    platform,
    {
      prompt: inline.prompt,
      promptFile: inline.file,
      model,
      workdir: scene.loop.workdir,
      runDir: supervision.runDir,
      privateHomeDir: agentHomePath(deps.home, scene.loop.id, run.node_name),
      mcpUrl: deps.mcpUrl,
      tokenEnv: TOKEN_ENV,
      asRoot: process.getuid?.() === 0,
      ...(launchAs.session === null ? {} : { session: launchAs.session }),
    },
    {
      extra: inline.env,
      run: {
        CANOPY_RUN_ID: run.id,
        [TOKEN_ENV]: token,
        CANOPY_MCP_URL: deps.mcpUrl,
        CANOPY_RUN_DIR: supervision.runDir,
        PATH: `${writeCanopyShim(supervision.runDir)}${path.delimiter}${process.env.PATH ?? ''}`,
      },
    },
  );
  return startSupervised(launch.command, launch.args, {
    ...supervision,
    cwd: scene.loop.workdir,
    env: launch.env,
    stdinFile: launch.stdinFile,
    onSpawn: execution.recordProcessGroup,
  });
}

/**
 * The agent's own report: the one kept in its run directory, which is the newest whichever way it came
 * (it outlives a worker that was down when the agent reported), else the store's; a blocker the loop
 * was never told of blocks it now.
 */
async function takeReport(deps: ActivityDeps, runId: string): Promise<{ status: 'pass' | 'fail'; output: string | null } | null> {
  const runDir = runDirectoryPath(deps.home, runId);
  const kept = readKept(() => readKeptReport(runDir));
  const blocker = readKept(() => readKeptBlocker(runDir));
  if (blocker && !blocker.delivered) await deps.blockForKeptReport(runId, blocker.reason);
  if (kept) {
    await updateNodeRun(deps.db, runId, { reported_status: kept.status, reported_output: kept.output });
    return kept;
  }
  const stored = await getNodeRun(deps.db, runId);
  return stored?.reported_status ? { status: stored.reported_status, output: stored.reported_output } : null;
}

/** A kept file that is not a report (the agent wrote over it) counts as none, said in the worker's log. */
function readKept<T>(read: () => T | null): T | null {
  try {
    return read();
  } catch (error) {
    Context.current().log.warn(`${(error as Error).message}; the store's report is used instead`);
    return null;
  }
}

/** A usage limit fails the node as `quota`; when its message says when the limit lifts, the loop resumes itself then. */
async function quotaVerdict(deps: ActivityDeps, loopId: string, quota: QuotaHit): Promise<Verdict> {
  if (!quota.resetAt) return { outcome: 'fail', failureKind: 'quota', reason: `Agent hit a usage limit: ${quota.message}` };
  const at = resumeAfterReset(quota.resetAt);
  await deps.scheduleAutorun(loopId, at);
  return {
    outcome: 'fail',
    failureKind: 'quota',
    reason: `Agent hit a usage limit: ${quota.message}; the loop resumes by itself at ${at}.`,
  };
}

/** A failed run whose output says the provider was down or overloaded failed for reasons outside its work. */
function outageVerdict(verdict: Verdict, outage: string | null): Verdict {
  const judgedTheWork = verdict.failureKind === 'exit_code' || verdict.failureKind === 'no_output' || verdict.failureKind === 'infra_crash';
  if (!outage || !judgedTheWork) return verdict;
  return { outcome: 'fail', failureKind: 'infra_outage', reason: `The provider was unavailable: ${outage}` };
}

async function recordUsage(deps: ActivityDeps, runId: string, reading: AgentReading): Promise<void> {
  await updateNodeRun(deps.db, runId, {
    ...(reading.model ? { executed_model: reading.model } : {}),
    input_tokens: reading.usage?.input_tokens ?? null,
    cached_input_tokens: reading.usage?.cached_input_tokens ?? null,
    output_tokens: reading.usage?.output_tokens ?? null,
    cost_usd: reading.usage?.cost_usd ?? null,
  });
}

/** A reading whose usage is a session's running total (`session`) less what the session's other runs recorded. */
async function ownUsage(deps: ActivityDeps, runId: string, reading: AgentReading, session: string | null): Promise<AgentReading> {
  if (session === null || !reading.usage) return reading;
  const before = await sessionTokensElsewhere(deps.db, session, runId);
  const less = (total: number | null, used: number) => (total === null ? null : Math.max(0, total - used));
  const { usage } = reading;
  return {
    ...reading,
    usage: {
      ...usage,
      input_tokens: less(usage.input_tokens, before.input),
      cached_input_tokens: less(usage.cached_input_tokens, before.cached),
      output_tokens: less(usage.output_tokens, before.output),
    },
  };
}

/** The session the CLI reported, and where it ran: what a later run of the node continues. */
async function recordSession(deps: ActivityDeps, execution: Execution, sessionId: string | null): Promise<void> {
  if (sessionId === null) return;
  await updateNodeRun(deps.db, execution.run.id, { session_id: sessionId, session_workdir: execution.scene.loop.workdir });
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
