// `canopy mcp`: MCP over stdio for a local MCP client, with operator access (every tool); stdout carries protocol only.
import type { Command } from 'commander';
import { action } from '../output';

export function registerMcp(program: Command): void {
  program
    .command('mcp')
    .description(
      'Serve MCP over stdio with every tool, for an MCP client on this machine (agents canopy starts may report with CANOPY_RUN_TOKEN)',
    )
    .action(
      action(async () => {
        const { openContext } = require('../../client/context') as typeof import('../../client/context');
        const { mcpServerModule, mcpStdioSdk } = require('../load-on-use') as typeof import('../load-on-use');
        const { StdioServerTransport } = mcpStdioSdk();
        const { createMcpServer } = mcpServerModule();
        const ctx = await openContext();
        const server = createMcpServer(ctx, { kind: 'operator', transport: 'stdio' });
        // The stdio transport does not end on end-of-input, so the client closing stdin is the signal to stop.
        const clientGone = new Promise((resolve) => process.stdin.once('close', resolve));
        await server.connect(new StdioServerTransport());
        await clientGone;
        await server.close();
        await ctx.close();
      }),
    );
}
