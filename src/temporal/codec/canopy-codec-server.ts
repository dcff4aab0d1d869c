// The codec server of a canopy home: its payload keys, its token, its address, the UI's origin.
import type { CanopyConfig } from '../../config';
import { CanopyError } from '../../domain/errors';
import { ensurePrivateDirectory } from '../../private-files';
import { codecToken, startCodecServer, type CodecServer } from './codec-server';
import { encryptionCodec } from './encryption-codec';

/** Serves the codec at config.codecAddress for the given browser origins (by default the Temporal UI's, as 127.0.0.1 and as localhost). */
export async function serveCanopyCodec(config: CanopyConfig, uiOrigins: readonly string[] = uiOriginsOf(config)): Promise<CodecServer> {
  if (config.payloadKeys.length === 0)
    throw new CanopyError(
      'invalid_input',
      'No payload keys: set CANOPY_PAYLOAD_KEYS (or CANOPY_PAYLOAD_KEYS_FILE) to the keys the workers use, or there is nothing to decode.',
    );
  ensurePrivateDirectory(config.home);
  const separator = config.codecAddress.lastIndexOf(':');
  const host = config.codecAddress.slice(0, separator);
  const port = Number(config.codecAddress.slice(separator + 1));
  const token = await codecToken(config.home);
  try {
    return await startCodecServer({ codec: encryptionCodec(config.payloadKeys), token, host, port, allowedOrigins: uiOrigins });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    throw new CanopyError(
      'refused',
      `${config.codecAddress} is taken, so the codec cannot be served there; set CANOPY_CODEC_ADDRESS to a free host:port.`,
    );
  }
}

/** The UI's origin, spelt both ways a browser may reach a loopback UI. */
function uiOriginsOf(config: CanopyConfig): string[] {
  if (!config.temporalUiUrl) return [];
  const ui = new URL(config.temporalUiUrl);
  const loopback = ['127.0.0.1', 'localhost'];
  if (!loopback.includes(ui.hostname)) return [ui.origin];
  return loopback.map((name) => `${ui.protocol}//${name}${ui.port ? `:${ui.port}` : ''}`);
}
