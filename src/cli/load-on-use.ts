// What only some commands need, loaded when they run: the worker, Temporal and MCP SDKs take most of
// a second to load, and `canopy loop list` should not wait for them.
/* eslint-disable @typescript-eslint/no-require-imports */

export const daemonModule = (): typeof import('../daemon') => require('../daemon') as typeof import('../daemon');

export const mcpHttpModule = (): typeof import('../mcp/http') => require('../mcp/http') as typeof import('../mcp/http');

export const mcpServerModule = (): typeof import('../mcp/server') => require('../mcp/server') as typeof import('../mcp/server');

export const reportForwarderModule = (): typeof import('../mcp/report-forwarder') =>
  require('../mcp/report-forwarder') as typeof import('../mcp/report-forwarder');

export const mcpStdioSdk = (): typeof import('@modelcontextprotocol/sdk/server/stdio.js') =>
  require('@modelcontextprotocol/sdk/server/stdio.js') as typeof import('@modelcontextprotocol/sdk/server/stdio.js');

/** The web app's server side, which `canopy up` mounts beside MCP. */
export const webModule = (): typeof import('../web') => require('../web') as typeof import('../web');
