// Builders for designs in graph tests, and the repository root the test fixtures live under.
import fs from 'node:fs';
import path from 'node:path';
import type { Design, DesignEdge, DesignEnsemble, DesignNode } from '../../src/domain/design';

/** The nearest directory above this file holding package.json; works from src and from dist. */
export function repoRoot(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${__dirname}`);
  }
}

export function agent(name: string, position: number, config: Record<string, unknown> = {}): DesignNode {
  return { name, kind: 'agent', position, config: { prompt_template: `Work on {{spec_content}} as ${name}`, ...config } };
}

export function check(name: string, position: number, command = 'npm test'): DesignNode {
  return { name, kind: 'check', position, config: { command } };
}

export function router(name: string, position: number, routes: Record<string, string[]>, fallback: string): DesignNode {
  return { name, kind: 'router', position, config: { routes, fallback } };
}

export function edge(source: string, target: string, condition = 'pass', type: DesignEdge['type'] = 'flow'): DesignEdge {
  return { source, target, condition, type };
}

export function ensemble(name: string, fields: Partial<DesignEnsemble> = {}): DesignEnsemble {
  return { name, prompt_template: 'Review {{previous_output}}', members: [{}, {}], ...fields };
}

export function design(parts: Partial<Design>): Design {
  return { nodes: [], edges: [], ensembles: [], ...parts };
}
