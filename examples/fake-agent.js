#!/usr/bin/env node
// A stand-in for an agent CLI. It follows instruction lines found in its prompt (the last argument):
//   @print <text>            print text to stdout
//   @write <path> <text>     write text (\n for newlines) to a file in the workdir
//   @commit <message>        git add -A && git commit
//   @report pass|fail [text] report on itself through `canopy node complete`
//   @block <reason>          report a blocker through `canopy node block`
//   @mcp-report pass|fail [text]  report through the MCP tool loop_complete_node, as a real CLI does
//   @mcp-block <reason>      report a blocker through the MCP tool loop_report_blocker
//   @wait-for <path>         wait until the file exists
//   @read <path>             print whether it can read that file or list that directory ("read <path>: ok" or its error code)
//   @sleep <seconds>         sleep
//   @spawn-sleeper <seconds> leave a child process running (to test process-group cleanup)
//   @exit <code>             exit now with that code
// Without any @print it prints "fake agent ran" so the run has output. A prompt too large for argv
// arrives as a file named by CANOPY_PROMPT_FILE, as a real agent would be told to read it. The MCP
// tools are those of the server named `canopy` in the file given as `--mcp-config <file>` (the format
// claude reads and canopy writes for {{mcp_config}}), over HTTP or stdio.
const { execFileSync, spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { URL } = require('node:url');

const canopy = path.join(__dirname, '..', 'bin', 'canopy.js');
const prompt = process.env.CANOPY_PROMPT_FILE
  ? fs.readFileSync(process.env.CANOPY_PROMPT_FILE, 'utf8')
  : process.argv[process.argv.length - 1] || '';
let printed = false;

function run(file, args) {
  execFileSync(file, args, { stdio: ['ignore', 'inherit', 'inherit'] });
}

function readable(file) {
  try {
    if (fs.statSync(file).isDirectory()) fs.readdirSync(file);
    else fs.readFileSync(file);
    return 'ok';
  } catch (error) {
    return error.code || error.message;
  }
}

const sleep = (seconds) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, seconds * 1000);

/** `${NAME}` in the config's values, as claude expands them. */
const expand = (text) => text.replace(/\$\{(\w+)\}/g, (_, name) => process.env[name] ?? '');

/** Calls one tool of canopy's MCP server; a failure is printed, as a CLI shows its model a failed tool call. */
async function callMcpTool(name, args) {
  const flag = process.argv.indexOf('--mcp-config');
  if (flag < 0) throw new Error('@mcp-report and @mcp-block need --mcp-config <file>');
  const server = JSON.parse(fs.readFileSync(process.argv[flag + 1], 'utf8')).mcpServers.canopy;
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const client = new Client({ name: 'fake-agent', version: '1' });
  let transport;
  if (server.type === 'http') {
    const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const headers = Object.fromEntries(Object.entries(server.headers ?? {}).map(([key, value]) => [key, expand(value)]));
    transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } });
  } else {
    const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');
    const env = Object.fromEntries(Object.entries(server.env ?? {}).map(([key, value]) => [key, expand(value)]));
    transport = new StdioClientTransport({ command: server.command, args: server.args ?? [], env: { PATH: process.env.PATH, ...env } });
  }
  try {
    await client.connect(transport);
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 300_000 });
    console.error(`[${name}] ${result.isError ? 'refused: ' : ''}${result.content.map((c) => c.text ?? '').join('\n')}`);
  } catch (error) {
    console.error(`[${name}] failed: ${error.message}`);
  } finally {
    await client.close().catch(() => undefined);
  }
}

async function main() {
  for (const line of prompt.split('\n')) {
    const match = /^\s*@([a-z-]+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, verb, rest] = match;
    if (verb === 'print') {
      console.log(rest);
      printed = true;
    } else if (verb === 'write') {
      const [file, ...words] = rest.split(' ');
      fs.writeFileSync(path.resolve(file), words.join(' ').replace(/\\n/g, '\n'));
    } else if (verb === 'commit') {
      run('git', ['add', '-A']);
      run('git', ['commit', '-q', '-m', rest || 'fake agent commit']);
    } else if (verb === 'report') {
      const [status, ...words] = rest.split(' ');
      run(process.execPath, [canopy, 'node', 'complete', '--status', status, '--output', words.join(' ')]);
    } else if (verb === 'block') {
      run(process.execPath, [canopy, 'node', 'block', '--reason', rest]);
    } else if (verb === 'mcp-report') {
      const [status, ...words] = rest.split(' ');
      await callMcpTool('loop_complete_node', { status, output: words.join(' ') });
    } else if (verb === 'mcp-block') {
      await callMcpTool('loop_report_blocker', { reason: rest });
    } else if (verb === 'read') {
      console.log(`read ${rest}: ${readable(rest)}`);
      printed = true;
    } else if (verb === 'wait-for') {
      while (!fs.existsSync(rest)) sleep(0.1);
    } else if (verb === 'sleep') {
      sleep(Number(rest));
    } else if (verb === 'spawn-sleeper') {
      spawn('sleep', [rest || '300'], { stdio: 'ignore' }).unref();
    } else if (verb === 'exit') {
      if (!printed) console.log('fake agent ran');
      process.exit(Number(rest));
    }
  }
  if (!printed) console.log('fake agent ran');
}

void main();
