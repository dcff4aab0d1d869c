// Payload keys from the environment: the list, the file, and every refusal, which names the entry
// and its key id but never the key's material.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { it } from 'node:test';
import { CanopyError } from '../../src/domain/errors';
import { payloadKeysOf } from '../../src/temporal/codec/payload-keys';
import { encryptionCodec } from '../../src/temporal/codec/encryption-codec';
import { payloadKeysText, randomKey } from '../helpers/payload-keys';

it('reads the list from CANOPY_PAYLOAD_KEYS or from the file CANOPY_PAYLOAD_KEYS_FILE names, first key current', () => {
  const keys = [randomKey('k2'), randomKey('k1')];
  assert.deepEqual(payloadKeysOf({ CANOPY_PAYLOAD_KEYS: payloadKeysText(keys) }), keys);
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'canopy-keys-')), 'keys');
  writeFileSync(file, `${payloadKeysText([keys[0]])}\n${payloadKeysText([keys[1]])}\n`);
  assert.deepEqual(payloadKeysOf({ CANOPY_PAYLOAD_KEYS_FILE: file }), keys);
  assert.deepEqual(payloadKeysOf({}), []);
});

it('refuses a malformed list, naming the entry and key id and never the key', () => {
  const good = payloadKeysText([randomKey('good')]);
  const short = `short:${Buffer.alloc(16, 7).toString('base64')}`;
  const cases: [NodeJS.ProcessEnv, RegExp][] = [
    [{ CANOPY_PAYLOAD_KEYS: `${good},${short}` }, /CANOPY_PAYLOAD_KEYS entry 2 \(key 'short'\) must be <key id>:<base64 of 32 bytes>/],
    [{ CANOPY_PAYLOAD_KEYS: `${good},nocolon` }, /entry 2 must be <key id>:<base64 of 32 bytes>.*its key id must be/],
    [{ CANOPY_PAYLOAD_KEYS: `bad id:${Buffer.alloc(32).toString('base64')}` }, /entry 1 must be/],
    [{ CANOPY_PAYLOAD_KEYS: `${good},${good}` }, /names key 'good' twice/],
    [{ CANOPY_PAYLOAD_KEYS: ' , ' }, /holds no key/],
    [{ CANOPY_PAYLOAD_KEYS: good, CANOPY_PAYLOAD_KEYS_FILE: '/x' }, /both set; set only one/],
    [{ CANOPY_PAYLOAD_KEYS_FILE: '/nonexistent/keys' }, /names \/nonexistent\/keys, which cannot be read \(ENOENT\)/],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => payloadKeysOf(env),
      (error: unknown) => {
        assert.ok(error instanceof CanopyError);
        assert.match(error.message, message);
        assert.ok(!error.message.includes(Buffer.alloc(16, 7).toString('base64')), 'the key material is not in the message');
        return true;
      },
    );
  }
});

it('encrypts under the current key and refuses a payload whose key material differs', async () => {
  const [payload] = await encryptionCodec([randomKey('k1')]).encode([
    { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"x"') },
  ]);
  await assert.rejects(
    encryptionCodec([randomKey('k1')]).decode([payload]),
    /encrypted with key 'k1' does not decrypt with the key of that id/,
  );
  await assert.rejects(
    encryptionCodec([]).decode([payload]),
    /encrypted with key 'k1', which this process does not have \(CANOPY_PAYLOAD_KEYS holds no payload keys\)/,
  );
  const plain = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"y"') };
  assert.deepEqual(await encryptionCodec([]).encode([plain]), [plain], 'without keys nothing is encrypted');
});
