// Any agent CLI given by argv in config.json: a template whose placeholders canopy fills for the run.
// An inner array is a group dropped whole when one of its placeholders has no value (e.g. no model).
// `{{prompt}}` puts the prompt in argv, where any local user can read it; `{{prompt_file}}` names the
// file holding it instead, for a CLI that can read its prompt from a file.
import { mcpConfigFile } from './mcp-config';
import type { AgentAdapter, AgentInvocation, AgentRun } from './types';

export type ArgvEntry = string | string[];

export const ARGV_PLACEHOLDERS = ['prompt', 'prompt_file', 'model', 'workdir', 'mcp_url', 'run_token_env', 'mcp_config'] as const;
const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;
/** Written only when the template asks for {{mcp_config}}. */
const MCP_CONFIG = 'mcp-config.json';

export function placeholdersOf(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((match) => match[1]);
}

export function commandAdapter(argv: ArgvEntry[]): AgentAdapter {
  const wantsMcpConfig = argv.flat().some((entry) => placeholdersOf(entry).includes('mcp_config'));
  return {
    binary: typeof argv[0] === 'string' ? argv[0] : argv[0][0],
    invocation(run: AgentRun): AgentInvocation {
      const values: Record<string, string> = {
        prompt: run.prompt,
        prompt_file: run.promptFile,
        model: run.model ?? '',
        workdir: run.workdir,
        mcp_url: run.mcpUrl,
        run_token_env: run.tokenEnv,
        mcp_config: wantsMcpConfig ? `${run.runDir}/${MCP_CONFIG}` : '',
      };
      const [command, ...args] = renderArgv(argv, values);
      return { command, args, env: {}, files: wantsMcpConfig ? { [MCP_CONFIG]: mcpConfigFile(run) } : {} };
    },
    read: () => ({ finalMessage: null, usage: null, model: null }),
    quota: () => null,
    outage: () => null,
  };
}

export function renderArgv(argv: ArgvEntry[], values: Record<string, string>): string[] {
  const fill = (text: string) => text.replace(PLACEHOLDER, (_, name: string) => values[name] ?? '');
  const empty = (text: string) => placeholdersOf(text).some((name) => !values[name]);
  return argv.flatMap((entry) => (typeof entry === 'string' ? [fill(entry)] : entry.some(empty) ? [] : entry.map(fill)));
}
