// How to point the Temporal UI and CLI at a codec server, printed by the commands that start one.
import type { CanopyConfig } from '../../config';
import type { CodecServer } from '../../temporal/codec/codec-server';
import { codecTokenPath } from '../../temporal/codec/codec-server';

/** The token itself is never printed: it is read from its file where it is used. */
export function codecUsage(config: CanopyConfig, server: CodecServer): string[] {
  const tokenFile = codecTokenPath(config.home);
  return [
    `Codec: ${server.url} decrypts payloads with ${config.payloadKeys.length} key(s), '${config.payloadKeys[0].id}' current; the token is in ${tokenFile}.`,
    `  Temporal UI: codec endpoint ${server.url}/<token>`,
    `  temporal CLI: --codec-endpoint ${server.url} --codec-auth "Bearer $(cat ${tokenFile})"`,
  ];
}
