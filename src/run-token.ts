// A node run's token: the secret a spawned agent presents to report on its own run and nothing else.
// The store keeps only its hash, which the worker writes and the MCP endpoints look runs up by.
import { createHash, randomBytes } from 'node:crypto';

export function newRunToken(): string {
  return randomBytes(24).toString('hex');
}

export function hashRunToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
