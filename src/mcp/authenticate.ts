// Who an HTTP request to the MCP endpoint comes from: the operator, an agent of a running node run, or nobody.
import { sameSecret } from '../private-files';
import { hashRunToken } from '../run-token';
import type { ClientContext } from '../client/context';
import { getNodeRunByTokenHash } from '../store/node-runs-repository';
import type { McpAccess } from './access';

/** The access an `Authorization: Bearer <token>` header grants, or null for none. A run token counts only while its run is running. */
export async function accessOf(
  ctx: ClientContext,
  authorization: string | undefined,
  operatorToken: string | null,
): Promise<McpAccess | null> {
  const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!token) return null;
  if (operatorToken !== null && sameSecret(token, operatorToken)) return { kind: 'operator', transport: 'http' };
  const run = await getNodeRunByTokenHash(ctx.db, hashRunToken(token));
  return run?.status === 'running' ? { kind: 'run', runToken: token } : null;
}
