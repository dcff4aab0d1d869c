// The agent CLI releases canopy is tested with, installed by `npm run setup:agents` into .tools/agents.
import path from 'node:path';
import { PROJECT_ROOT } from '../project';

export const PINNED_AGENT_PACKAGES = {
  claude: { package: '@anthropic-ai/claude-code', version: '2.1.197' },
  codex: { package: '@openai/codex', version: '0.169.0' },
  opencode: { package: 'opencode-ai', version: '1.18.33' },
  gemini: { package: '@google/gemini-cli', version: '0.61.0' },
} as const;

export const AGENT_TOOLS_PREFIX = path.join(PROJECT_ROOT, '.tools', 'agents');
/** Where the installed CLIs' commands are. */
export const AGENT_TOOLS_BIN = path.join(AGENT_TOOLS_PREFIX, 'node_modules', '.bin');
