// Who an MCP server answers to, which decides the tools it offers.
/**
 * The operator is the local user (`canopy mcp` over stdio) or whoever holds the operator token
 * (HTTP); they get every tool. A run token, which canopy hands one agent run, gets only the two
 * self-report tools, and they act on that run alone.
 */
export type McpAccess = { kind: 'operator'; transport: 'stdio' | 'http' } | { kind: 'run'; runToken: string };

/** Who acts, as a decision or a remark records it: the local user over stdio, the holder of the operator token over HTTP. */
export function operatorName(access: McpAccess & { kind: 'operator' }, localUser: string): string {
  return access.transport === 'stdio' ? `${localUser} (mcp)` : 'operator token (mcp)';
}
