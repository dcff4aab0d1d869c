// The operator token: the secret that gives an MCP HTTP client every tool, kept in <home>/mcp-token.
import path from 'node:path';
import { ensurePrivateDirectory, privateToken } from '../private-files';

export function operatorTokenPath(home: string): string {
  return path.join(home, 'mcp-token');
}

/** Reads the token, creating it (readable by the owner only) on first use. */
export function operatorToken(home: string): Promise<string> {
  ensurePrivateDirectory(home);
  return privateToken(operatorTokenPath(home), 'operator token');
}
