// The node kinds by name, each with the one line that describes it wherever canopy lists kinds (CLI
// help and choices, MCP descriptions). Free of schemas, so the CLI can name kinds at start-up without
// loading validation; each kind's rules are in its own module beside this one, gathered in registry.ts.

export const NODE_KINDS = ['agent', 'check', 'gate', 'router', 'approval', 'quorum'] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

/** Kinds a person or agent adds; a quorum node comes only with its ensemble. */
export const AUTHORED_NODE_KINDS = ['agent', 'check', 'gate', 'router', 'approval'] as const satisfies readonly NodeKind[];
export type AuthoredNodeKind = (typeof AUTHORED_NODE_KINDS)[number];

/** Kinds whose run is a process (an agent CLI, a shell command) in the workdir. */
export type ExecutedKind = 'agent' | 'check';
/** Kinds that judge the upstream output alone, with no process. */
export type JudgingKind = 'gate' | 'router';

export const NODE_KIND_SUMMARIES: Readonly<Record<NodeKind, string>> = {
  agent: 'runs an agent CLI on its prompt; passes or fails as the agent reports',
  check: 'runs a shell command in the workdir; passes when it exits 0',
  gate: 'passes or fails on what the upstream output contains or matches, and passes that output on',
  router: 'takes the edge labelled with the first route whose token the upstream output holds',
  approval: 'stops the walk and asks a person: approved it passes, rejected it fails with their comment as its output',
  quorum: "joins an ensemble's members (made with its ensemble, never added alone)",
};

/** "agent, check, gate or router": the kinds a person adds, as a sentence names them. */
export const AUTHORED_KIND_LIST = `${AUTHORED_NODE_KINDS.slice(0, -1).join(', ')} or ${AUTHORED_NODE_KINDS.at(-1)}`;

/** One line per kind a person adds: its name and what it does. */
export function authoredKindLines(): string[] {
  return AUTHORED_NODE_KINDS.map((kind) => `${kind}: ${NODE_KIND_SUMMARIES[kind]}`);
}
