// The sidebar as rows: the inbox (every approval waiting for a person), projects (one per loop
// workdir, the current directory's first) with their loops, the backlog of the selected project (its
// tagged specs, then the untagged ones under "any"), and the blueprints. Filtering and the archived
// toggle happen here, away from the view.
import path from 'node:path';
import type { InboxItem } from '../../client/approvals-service';
import type { Blueprint } from '../../domain/blueprint';
import type { Loop, LoopStatus } from '../../domain/loop';
import type { StoredSpec } from '../../store/specs-repository';
import type { SidebarLists } from './store-actions';

export type SidebarRow =
  | { kind: 'heading'; key: string; text: string }
  | { kind: 'approval'; key: string; item: InboxItem }
  | { kind: 'project'; key: string; workdir: string }
  | { kind: 'loop'; key: string; loop: Loop }
  | { kind: 'spec'; key: string; spec: StoredSpec }
  | { kind: 'blueprint'; key: string; blueprint: Blueprint };

export interface SidebarChoices {
  cwd: string;
  /** The workdir whose backlog is shown; the first project's when null. */
  project: string | null;
  showArchived: boolean;
  /** Case-insensitive part of a name or workdir; empty shows everything. */
  filter: string;
}

export const STATUS_GLYPH: Record<LoopStatus, { glyph: string; color: string }> = {
  running: { glyph: '▶', color: 'yellow' },
  paused: { glyph: '‖', color: 'cyan' },
  blocked: { glyph: '■', color: 'magenta' },
  waiting: { glyph: '?', color: 'magenta' },
  failed: { glyph: '✗', color: 'red' },
  completed: { glyph: '✓', color: 'green' },
  pending: { glyph: '○', color: 'gray' },
};

/** In place of the status glyph while the loop has a pending autorun. */
export const SCHEDULED_GLYPH = { glyph: '◷', color: 'blue' };

/** Loop workdirs, the current directory's first when it holds loops, then by path. */
export function projectsOf(loops: readonly Loop[], cwd: string): string[] {
  const workdirs = [...new Set(loops.map((loop) => loop.workdir))].sort();
  return workdirs.includes(cwd) ? [cwd, ...workdirs.filter((workdir) => workdir !== cwd)] : workdirs;
}

export function sidebarRows(lists: SidebarLists, choices: SidebarChoices): SidebarRow[] {
  const needle = choices.filter.toLowerCase();
  const matches = (...texts: string[]) => !needle || texts.some((text) => text.toLowerCase().includes(needle));
  const loops = lists.loops.filter((loop) => (choices.showArchived || !loop.archived) && matches(loop.name, loop.workdir));
  const projects = projectsOf(loops, choices.cwd);
  const project = choices.project ?? projects[0] ?? choices.cwd;
  const inbox = lists.inbox.filter((item) => matches(item.loop_name, item.node, item.workdir));
  const rows: SidebarRow[] = [
    { kind: 'heading', key: 'h:inbox', text: `Inbox · ${inbox.length}` },
    ...inbox.map((item): SidebarRow => ({ kind: 'approval', key: `a:${item.node_run_id}`, item })),
    { kind: 'heading', key: 'h:projects', text: choices.showArchived ? 'Projects (with archived)' : 'Projects' },
  ];
  for (const workdir of projects) {
    rows.push({ kind: 'project', key: `p:${workdir}`, workdir });
    for (const loop of loops.filter((l) => l.workdir === workdir)) rows.push({ kind: 'loop', key: `l:${loop.id}`, loop });
  }
  const specs = (workdir: string | null) =>
    lists.backlog
      .filter((spec) => spec.workdir === workdir && matches(spec.name))
      .map((spec): SidebarRow => ({ kind: 'spec', key: `s:${spec.id}`, spec }));
  rows.push({ kind: 'heading', key: 'h:backlog', text: `Backlog · ${path.basename(project)}` }, ...specs(project));
  rows.push({ kind: 'heading', key: 'h:any', text: 'Backlog · any' }, ...specs(null));
  rows.push({ kind: 'heading', key: 'h:blueprints', text: 'Blueprints' });
  for (const blueprint of lists.blueprints.filter((b) => matches(b.name))) {
    rows.push({ kind: 'blueprint', key: `b:${blueprint.name}`, blueprint });
  }
  return rows;
}

/** The workdir a row belongs to, for the backlog: a project's, a loop's or an approval's; null for the other rows. */
export function projectOfRow(row: SidebarRow | undefined): string | null {
  if (row?.kind === 'project') return row.workdir;
  if (row?.kind === 'loop') return row.loop.workdir;
  if (row?.kind === 'approval') return row.item.workdir;
  return null;
}
