// How people see loops and their graph parts in the terminal (`--json` prints the same data as JSON).
import { HOOK_EVENTS } from '../../domain/vocabulary';
import { isCommandHook, type Hook, type LoopHooks } from '../../domain/hooks';
import { DEFAULT_MAX_ITERATIONS, DEFAULT_SPEC_ATTEMPT_LIMIT, type Loop } from '../../domain/loop';
import type { StoredNode } from '../../graph/stored-graph';
import type { EdgeView, EnsembleView } from '../../client/graph-view-service';
import type { LoopDetail } from '../../client/loops-service';
import type { EnsembleEntry, EnsembleTarget } from '../../domain/ensemble';
import { memberLabel } from '../../graph/ensemble-names';
import { takesTurns } from '../../domain/ensemble';
import { entrySource } from '../../graph/ensemble-wiring';
import { table } from '../output';

export function describeLoop(loop: Loop): string {
  return `${loop.name} (${loop.id}), ${loop.status}${loop.archived ? ', archived' : ''}, in ${loop.workdir}${loop.host ? ` on ${loop.host}` : ''}`;
}

export function describeNode(node: StoredNode): string {
  return `${node.kind} node '${node.name}' (${node.id}) at position ${node.position}`;
}

export function describeEdge(edge: EdgeView): string {
  return `${edge.type} edge ${edge.source} -> ${edge.target} on ${edge.condition} (${edge.id})`;
}

export function describeEnsemble(ensemble: EnsembleView): string {
  const wiring = [
    ...(ensemble.entry_from ?? []).map((entry) => `from ${wiredVertex(entry)} on ${entry.condition ?? 'always'}`),
    ensemble.on_pass_to && `pass -> ${wiredVertex(ensemble.on_pass_to)}`,
    ensemble.on_fail_to && `fail -> ${wiredVertex(ensemble.on_fail_to)}`,
  ].filter(Boolean);
  const models = ensemble.members.map((member) => memberLabel(member, '(no platform)'));
  const grace = ensemble.quorum_grace_minutes === undefined ? '' : `, quorum_grace_minutes ${ensemble.quorum_grace_minutes}`;
  const isolation = ensemble.isolation === 'worktree' ? ', each member in a worktree of its own' : '';
  const quorum = takesTurns(ensemble) ? 'first pass wins' : `min_pass ${ensemble.min_pass ?? 'all'}`;
  return (
    `${ensemble.kind ?? 'parallel'} ensemble '${ensemble.name}' (${ensemble.ensemble_id}): ${ensemble.members.length} members ` +
    `[${models.join(', ')}], ${quorum}${grace}${isolation}${wiring.length ? `; ${wiring.join(', ')}` : ''}`
  );
}

/** A node by its name, an ensemble as `ensemble <name>`. */
function wiredVertex(end: EnsembleEntry | EnsembleTarget): string {
  if (typeof end === 'string') return end;
  return end.ensemble === undefined ? entrySource(end) : `ensemble ${end.ensemble}`;
}

export function describeLoopDetail(loop: LoopDetail): string {
  const plainNodes = loop.nodes.filter((node) => node.ensemble_id === null);
  const sections = [
    describeLoop(loop),
    loop.description,
    section('Settings', settingsText(loop.settings)),
    section('Hooks', hookLines(loop.hooks).join('\n')),
    section('Nodes', table(plainNodes.map((node) => [node.id, node.name, node.kind, String(node.position), platformOf(node)]))),
    section('Ensembles', loop.ensembles.map(describeEnsemble).join('\n')),
    section('Edges', table(loop.edges.map((edge) => [edge.id, `${edge.source} -> ${edge.target}`, edge.condition, edge.type]))),
    section('Specs', table(loop.specs.map((spec) => [spec.id, spec.status, spec.name, `failed in ${spec.failure_count} run(s)`]))),
  ];
  return sections.filter(Boolean).join('\n');
}

function settingsText(settings: Loop['settings']): string {
  const value = (set: number | undefined, fallback: number) => (set === undefined ? `${fallback} (default)` : String(set));
  return [
    `max_iterations ${value(settings.max_iterations, DEFAULT_MAX_ITERATIONS)}`,
    `spec_attempt_limit ${value(settings.spec_attempt_limit, DEFAULT_SPEC_ATTEMPT_LIMIT)}`,
    `max_stalled_rounds ${settings.max_stalled_rounds ?? 'none (default)'}`,
  ].join(', ');
}

function section(title: string, body: string): string {
  return `\n${title}:\n${body ? indent(body) : '  (none)'}`;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

function platformOf(node: StoredNode): string {
  if (node.kind !== 'agent') return '';
  return typeof node.config.platform === 'string' ? node.config.platform : '(no platform)';
}

/** One line per hook: `on_failed[0] command: ./notify.sh (timeout 5 min)`. */
export function hookLines(hooks: LoopHooks): string[] {
  return HOOK_EVENTS.flatMap((event) => (hooks[event] ?? []).map((hook, index) => `${event}[${index}] ${hookText(hook)}`));
}

function hookText(hook: Hook): string {
  const timeout = hook.timeout_minutes === undefined ? '' : ` (timeout ${hook.timeout_minutes} min)`;
  if (isCommandHook(hook)) return `command: ${hook.command}${timeout}`;
  return `agent ${hook.platform}${hook.model ? `/${hook.model}` : ''}: ${hook.prompt}${timeout}`;
}
