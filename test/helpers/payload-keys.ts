// Payload keys for tests: fresh random ones, and the CANOPY_PAYLOAD_KEYS text that names them.
import { randomBytes } from 'node:crypto';
import type { PayloadKey } from '../../src/temporal/codec/payload-keys';

export function randomKey(id: string): PayloadKey {
  return { id, material: randomBytes(32) };
}

export function payloadKeysText(keys: readonly PayloadKey[]): string {
  return keys.map((key) => `${key.id}:${key.material.toString('base64')}`).join(',');
}
