// loop_preflight: whether a loop is ready to run, one check per precondition, each saying what to fix.
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { loadPlatforms, locateCommand, platformBinary } from '../agents';
import { probePlatforms } from './probe-service';
import { repositoryState } from '../git/workdir';
import type { Design } from '../domain/design';
import { memberNodeName } from '../graph/ensemble-names';
import { validateDesign } from '../graph/validate-design';
import { listSpecs } from '../store/specs-repository';
import type { ClientContext } from './context';
import { loadDesign } from './design-service';

export interface PreflightCheck {
  name: string;
  ok: boolean;
  detail: string;
}

export interface PreflightReport {
  loop_id: string;
  ok: boolean;
  checks: PreflightCheck[];
}

interface AgentPlatform {
  /** The agent node, or `<ensemble>/member-N`. */
  node: string;
  platform: string | undefined;
}

export async function preflight(ctx: ClientContext, loopId: string, options: { probe?: boolean } = {}): Promise<PreflightReport> {
  const { loop, design } = await loadDesign(ctx.db, loopId);
  const pending = await listSpecs(ctx.db, { loopId, status: 'pending' });
  const checks = [
    graphCheck(design),
    ...(await platformChecks(ctx.config.home, agentPlatforms(design))),
    ...(options.probe ? await probeChecks(ctx.config.home, agentPlatforms(design)) : []),
    ...(await workdirChecks(loop.workdir)),
    {
      name: 'pending specs',
      ok: pending.length > 0,
      detail: pending.length
        ? `${pending.length} pending spec${pending.length === 1 ? '' : 's'}`
        : `none; add one with \`canopy spec create --loop ${loop.id} --name <name> --content <text>\`, or run the loop against a queue`,
    },
  ];
  return { loop_id: loop.id, ok: checks.every((check) => check.ok), checks };
}

function graphCheck(design: Design): PreflightCheck {
  if (design.nodes.length + design.ensembles.length === 0) {
    return { name: 'graph', ok: false, detail: 'the graph is empty; add a node with `canopy loop node add`' };
  }
  const issues = validateDesign(design);
  if (issues.length) return { name: 'graph', ok: false, detail: issues.map((issue) => `${issue.field}: ${issue.message}`).join('; ') };
  return {
    name: 'graph',
    ok: true,
    detail: `${design.nodes.length} nodes, ${design.ensembles.length} ensembles, ${design.edges.length} edges; valid`,
  };
}

function agentPlatforms(design: Design): AgentPlatform[] {
  return [
    ...design.nodes
      .filter((node) => node.kind === 'agent')
      .map((node) => ({ node: node.name, platform: node.config.platform as string | undefined })),
    ...design.ensembles.flatMap((ensemble) =>
      ensemble.members.map((member, index) => ({ node: memberNodeName(ensemble.name, index), platform: member.platform })),
    ),
  ];
}

/** Every agent has a platform, and every platform used is configured and has its binary on PATH. */
async function platformChecks(home: string, agents: AgentPlatform[]): Promise<PreflightCheck[]> {
  const missing = agents.filter((agent) => agent.platform === undefined).map((agent) => agent.node);
  const assigned: PreflightCheck = {
    name: 'platforms assigned',
    ok: missing.length === 0,
    detail: missing.length
      ? `no platform on ${missing.join(', ')}; set one with \`canopy loop node update\` or \`canopy loop ensemble update\``
      : `${agents.length} agent${agents.length === 1 ? '' : 's'}, each with a platform`,
  };
  const used = [...new Set(agents.flatMap((agent) => (agent.platform === undefined ? [] : [agent.platform])))];
  if (used.length === 0) return [assigned];
  let platforms: ReturnType<typeof loadPlatforms>;
  try {
    platforms = loadPlatforms(home);
  } catch (error) {
    return [assigned, { name: 'platform config', ok: false, detail: (error as Error).message }];
  }
  const binaries = await Promise.all(
    used.map(async (name): Promise<PreflightCheck> => {
      const platform = platforms.get(name);
      if (!platform) {
        return {
          name: `platform ${name}`,
          ok: false,
          detail: `not configured; known: ${[...platforms.keys()].join(', ')} (add it to ${path.join(home, 'config.json')})`,
        };
      }
      const command = platformBinary(platform);
      const found = await locateCommand(command);
      return { name: `platform ${name}`, ok: found !== null, detail: found ?? `'${command}' is not on PATH; install it or fix PATH` };
    }),
  );
  return [assigned, ...binaries];
}

/** Each platform the loop uses, run once for real with a tiny prompt. */
async function probeChecks(home: string, agents: AgentPlatform[]): Promise<PreflightCheck[]> {
  const used = [...new Set(agents.flatMap((agent) => (agent.platform === undefined ? [] : [agent.platform])))];
  const probes = await probePlatforms(home, used).catch((error: Error) => [
    { name: 'config', state: 'misconfigured', detail: error.message },
  ]);
  return probes.map((p) => ({ name: `probe ${p.name}`, ok: p.state === 'reachable', detail: `${p.state}: ${p.detail}` }));
}

async function workdirChecks(workdir: string): Promise<PreflightCheck[]> {
  const isDirectory = await stat(workdir).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  if (!isDirectory)
    return [
      { name: 'workdir', ok: false, detail: `${workdir} is not a directory; create it or point the loop elsewhere with loop_update` },
    ];
  const repository = await repositoryState(workdir);
  return [
    { name: 'workdir', ok: true, detail: workdir },
    {
      name: 'git repository',
      ok: repository.isRepo,
      detail: repository.isRepo ? 'yes' : 'not a git repository; commit rights and HEAD tracking need one (`git init`)',
    },
    ...(repository.isRepo
      ? [
          {
            name: 'git clean',
            ok: repository.clean,
            detail: repository.clean
              ? 'no uncommitted changes'
              : 'uncommitted changes; commit or stash them so reviewers see only this run’s diff',
          },
        ]
      : []),
  ];
}
