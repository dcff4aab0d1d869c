// Builders of designs (nodes, edges, ensembles) for the graph tests.
import type { Design, DesignEdge, DesignEnsemble, DesignNode } from '../../src/domain/design';

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
