// A payload codec that encrypts every payload with AES-256-GCM under the current key, and names the
// key in the payload's metadata so that any listed key can decrypt what it encrypted.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporalProto } from '../sdk';
import type { PayloadKey } from './payload-keys';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts with the first of `keys` and decrypts with whichever one a payload names. With no keys it
 * encrypts nothing, and an encrypted payload it meets fails with the key id it needs.
 */
export function encryptionCodec(keys: readonly PayloadKey[]): PayloadCodec {
  const byId = new Map(keys.map((key) => [key.id, key.material]));
  const current = keys[0];
  function seal(payload: Payload): Payload {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', current.material, nonce);
    cipher.setAAD(Buffer.from(current.id));
    const sealed = Buffer.concat([cipher.update(payloadMessage().encode(payload).finish()), cipher.final()]);
    return {
      metadata: { encoding: Buffer.from(ENCRYPTED_ENCODING), [KEY_ID_METADATA]: Buffer.from(current.id) },
      data: Buffer.concat([nonce, sealed, cipher.getAuthTag()]),
    };
  }

  function unseal(payload: Payload): Payload {
    if (text(payload.metadata?.encoding) !== ENCRYPTED_ENCODING) return payload;
    const id = text(payload.metadata?.[KEY_ID_METADATA]);
    const material = byId.get(id);
    if (!material) throw new Error(missingKeyMessage(id, [...byId.keys()]));
    return payloadMessage().decode(open(payload, id, material));
  }

  // A promise made this way rejects with what the mapping throws.
  return {
    encode: (payloads) => new Promise((resolve) => resolve(current ? payloads.map(seal) : payloads)),
    decode: (payloads) => new Promise((resolve) => resolve(payloads.map(unseal))),
  };
}

function open(payload: Payload, id: string, material: Buffer): Uint8Array {
  const data = Buffer.from(payload.data ?? []);
  const decipher = createDecipheriv('aes-256-gcm', material, data.subarray(0, NONCE_BYTES));
  decipher.setAAD(Buffer.from(id));
  decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new Error(
      `A payload encrypted with key '${id}' does not decrypt with the key of that id this process holds: the key's material differs from the one that encrypted it, or the payload is damaged.`,
    );
  }
}

function missingKeyMessage(id: string, held: string[]): string {
  const holding = held.length === 0 ? 'holds no payload keys' : `holds only ${held.map((key) => `'${key}'`).join(', ')}`;
  return `A payload is encrypted with key '${id}', which this process does not have (CANOPY_PAYLOAD_KEYS ${holding}): add key '${id}' to the list, after the current key, and restart it.`;
}

/** Loaded on first use: a client that never meets a payload does not load the protobuf definitions. */
const payloadMessage = () => temporalProto().temporal.api.common.v1.Payload;

const text = (bytes: Uint8Array | null | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : '');
