// The operator token: the secret that gives an MCP HTTP client every tool, kept in <home>/mcp-token.
import { randomBytes } from 'node:crypto';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ensurePrivateDirectory } from '../private-files';

export function operatorTokenPath(home: string): string {
  return path.join(home, 'mcp-token');
}

/** Reads the token, creating it (32 random bytes as hex, readable by the owner only) on first use. */
export async function operatorToken(home: string): Promise<string> {
  const file = operatorTokenPath(home);
  ensurePrivateDirectory(home);
  await createOnce(file, randomBytes(32).toString('hex') + '\n');
  const token = (await readFile(file, 'utf8')).trim();
  if (!token) throw new Error(`${file} is empty; delete it and canopy will make a new operator token.`);
  return token;
}

/** Written aside and linked into place, so a process starting at the same moment reads a whole token or makes its own link fail. */
async function createOnce(file: string, content: string): Promise<void> {
  const draft = `${file}.${process.pid}.draft`;
  await writeFile(draft, content, { mode: 0o600 });
  try {
    await link(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await rm(draft, { force: true });
  }
}
