// A stand-in agent CLI for the MCP tests, doing what a real one does with canopy's MCP config: start the
// stdio server it names with the environment it gives (expanding ${VAR}, as claude does), list its tools,
// and report on itself. Arguments: <mcp config file> <prompt>, whose first line is the task: <status>|<output>.
import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

async function main(): Promise<void> {
  const [configFile, prompt] = process.argv.slice(2);
  const server = JSON.parse(readFileSync(configFile, 'utf8')).mcpServers.canopy as {
    command: string;
    args: string[];
    env: Record<string, string>;
  };
  const env = Object.fromEntries(
    Object.entries(server.env).map(([name, value]) => [name, value.replace(/\$\{(\w+)\}/g, (_, v: string) => process.env[v] ?? '')]),
  );
  const client = new Client({ name: 'mcp-agent', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: server.command, args: server.args, env: { PATH: process.env.PATH ?? '', ...env } }),
  );
  const url = env.CANOPY_MCP_URL;
  const { tools } = await client.listTools();
  console.log(`CANOPY_MCP_URL is the config's url: ${process.env.CANOPY_MCP_URL === url}`);
  console.log(
    `tools: ${tools
      .map((tool) => tool.name)
      .sort()
      .join(' ')}`,
  );
  const [status, output] = prompt.split('\n')[0].split('|');
  const result = await client.callTool({ name: 'loop_complete_node', arguments: { status, output } });
  console.log(`reported: ${JSON.stringify(result.structuredContent)}`);
  await client.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
