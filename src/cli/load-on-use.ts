// What only some commands need, loaded when they run: the worker, Temporal and MCP SDKs take most of
// a second to load, and `canopy loop list` should not wait for them.
/* eslint-disable @typescript-eslint/no-require-imports */

export const daemonModule = (): typeof import('../daemon') => require('../daemon');

export const mcpHttpModule = (): typeof import('../mcp/http') => require('../mcp/http');

export const mcpServerModule = (): typeof import('../mcp/server') => require('../mcp/server');

export const mcpStdioSdk = (): typeof import('@modelcontextprotocol/sdk/server/stdio.js') =>
  require('@modelcontextprotocol/sdk/server/stdio.js');
