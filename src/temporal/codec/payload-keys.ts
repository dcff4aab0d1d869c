// The keys that encrypt payloads in Temporal's history: CANOPY_PAYLOAD_KEYS, or the same list in the
// file CANOPY_PAYLOAD_KEYS_FILE names. The first key encrypts; every key decrypts, so a key is
// rotated by putting a new one first and keeping the old ones after it while runs they wrote exist.
import { readFileSync } from 'node:fs';
import { CanopyError } from '../../domain/errors';

export interface PayloadKey {
  id: string;
  /** 32 bytes: an AES-256 key. */
  material: Buffer;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const KEY_BYTES = 32;
const FORMAT = `<key id>:<base64 of ${KEY_BYTES} bytes>, e.g. k1:$(openssl rand -base64 ${KEY_BYTES})`;

/** The keys the environment gives, first one current; none when neither variable is set. */
export function payloadKeysOf(env: NodeJS.ProcessEnv): PayloadKey[] {
  const listed = env.CANOPY_PAYLOAD_KEYS;
  const file = env.CANOPY_PAYLOAD_KEYS_FILE;
  if (listed && file) throw refusal('CANOPY_PAYLOAD_KEYS and CANOPY_PAYLOAD_KEYS_FILE are both set; set only one of them.');
  if (file) return parsePayloadKeys(readKeyFile(file), `CANOPY_PAYLOAD_KEYS_FILE (${file})`);
  return listed ? parsePayloadKeys(listed, 'CANOPY_PAYLOAD_KEYS') : [];
}

/**
 * Parses a list of `<key id>:<base64>` entries separated by commas or white space. A refusal names
 * the entry by its place and its key id, never its key material.
 */
export function parsePayloadKeys(text: string, source: string): PayloadKey[] {
  const entries = text.split(/[\s,]+/).filter(Boolean);
  if (entries.length === 0) throw refusal(`${source} holds no key; give one or more entries of ${FORMAT}.`);
  const keys = entries.map((entry, index) => parseEntry(entry, `${source} entry ${index + 1}`));
  const ids = keys.map((key) => key.id);
  const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
  if (repeated) throw refusal(`${source} names key '${repeated}' twice; each key id must be unique.`);
  return keys;
}

function parseEntry(entry: string, where: string): PayloadKey {
  const separator = entry.indexOf(':');
  const id = separator < 0 ? '' : entry.slice(0, separator);
  if (!KEY_ID.test(id)) throw refusal(`${where} must be ${FORMAT}; its key id must be 1 to 64 letters, digits, '.', '_' or '-'.`);
  const encoded = entry.slice(separator + 1);
  const material = Buffer.from(encoded, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || material.length !== KEY_BYTES)
    throw refusal(`${where} (key '${id}') must be ${FORMAT}; its key is not the base64 of ${KEY_BYTES} bytes.`);
  return { id, material };
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw refusal(`CANOPY_PAYLOAD_KEYS_FILE names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code}).`);
  }
}

const refusal = (message: string) => new CanopyError('invalid_input', message);
