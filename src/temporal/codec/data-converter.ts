// The data converter every client and worker canopy starts uses, so what one encrypts the others read.
import type { DataConverter } from '@temporalio/common';
import { compiledPath } from '../../project';
import { encryptionCodec } from './encryption-codec';
import type { PayloadKey } from './payload-keys';

/**
 * With keys, payloads and failure messages are encrypted. Without, nothing is, and an encrypted
 * payload met by mistake fails naming the key it needs rather than as an unknown encoding.
 */
export function canopyDataConverter(keys: readonly PayloadKey[]): DataConverter {
  return {
    payloadCodecs: [encryptionCodec(keys)],
    ...(keys.length > 0 && { failureConverterPath: compiledPath('temporal', 'codec', 'failure-converter.js') }),
  };
}
