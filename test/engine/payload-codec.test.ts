// Payloads encrypted in Temporal's history, on the real dev server: with keys set, `temporal workflow
// show` of a finished run holds none of a planted spec text, prompt or output line, while canopy,
// the codec endpoint and the temporal CLI through it read them; a rotated key still decodes old
// runs; a worker without the key a payload needs fails its task naming that key.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { openContext } from '../../src/client/context';
import { startLoopRun } from '../../src/client/runs-service';
import { loopWorkflowId } from '../../src/contract';
import { serveCanopyCodec } from '../../src/temporal/codec/canopy-codec-server';
import { codecToken, type CodecServer } from '../../src/temporal/codec/codec-server';
import { encryptionCodec, ENCRYPTED_ENCODING, KEY_ID_METADATA } from '../../src/temporal/codec/encryption-codec';
import { freePort } from '../../src/temporal/free-port';
import { childEnv, engineHarness, testTemporalAddress, type EngineHarness } from '../helpers/engine';
import { agent, check, linked, loopWithSpecs, runToEnd, scratchDir } from '../helpers/loops';
import { payloadKeysText, randomKey } from '../helpers/payload-keys';
import { runCanopy } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

const SLOW = { timeout: 120_000 };

/** Texts that must reach the run (spec, prompt, agent output, check output) and never its history in the clear. */
function plantedTexts() {
  const tag = randomBytes(4).toString('hex');
  return { spec: `spec-text-${tag}`, prompt: `prompt-text-${tag}`, output: `agent-output-${tag}`, check: `check-output-${tag}` };
}

/**
 * A run whose history would carry every planted text: the agent echoes its rendered prompt (the
 * spec's text in it) in its output, as agents do; the check prints a line and fails.
 */
async function plantedRun(h: EngineHarness, planted: ReturnType<typeof plantedTexts>): Promise<string> {
  const shape = linked(
    agent('writer', 1, `@print ${planted.output} {{spec_content}} ${planted.prompt}`),
    check('tests', 2, `echo ${planted.check}; exit 3`),
  );
  const loopId = await loopWithSpecs(h.ctx, scratchDir(), shape, [{ name: 'planted', content: planted.spec }]);
  assert.equal((await h.withWorker(() => runToEnd(h.ctx, loopId))).status, 'failed');
  return loopId;
}

/** `temporal workflow show -o json` of the loop's run, optionally through a codec endpoint (served by this process, so never run synchronously). */
async function workflowShow(loopId: string, codec?: { url: string; token: string }): Promise<string> {
  const binary = process.env.CANOPY_TEST_TEMPORAL_BIN;
  assert.ok(binary, 'CANOPY_TEST_TEMPORAL_BIN is set by the test run');
  const through = codec ? ['--codec-endpoint', codec.url, '--codec-auth', `Bearer ${codec.token}`] : [];
  const shown = await promisify(execFile)(
    binary,
    ['workflow', 'show', '--workflow-id', loopWorkflowId(loopId), '--address', testTemporalAddress(), '-o', 'json', ...through],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 30_000 },
  );
  return shown.stdout;
}

type ShownPayload = { metadata: Record<string, string>; data?: string };

const SDK_MARKER_DATA = new Set(['data', 'patch-data']);

/**
 * Every payload of canopy's in a history shown as JSON: objects with a metadata map and base64 data,
 * less the search attributes (which Temporal indexes, so they are never encoded) and the SDK's own
 * bookkeeping in markers: a local activity's `data` (sequence number, type, attempt) and a patch's
 * `patch-data` (the patch's id).
 */
function payloadsIn(history: string): ShownPayload[] {
  const found: ShownPayload[] = [];
  const walk = (value: unknown): void => {
    if (!value || typeof value !== 'object') return;
    const candidate = value as Partial<ShownPayload>;
    if (candidate.metadata && typeof candidate.metadata.encoding === 'string') found.push(candidate as ShownPayload);
    for (const [key, inner] of Object.entries(value))
      if (key !== 'searchAttributes' && !(SDK_MARKER_DATA.has(key) && typeof inner === 'object' && inner && 'payloads' in inner))
        walk(inner);
  };
  walk(JSON.parse(history));
  return found;
}

const decoded = (base64: string) => Buffer.from(base64, 'base64').toString('utf8');

/** The data of every payload in a shown history, as text. */
const plainTexts = (history: string) =>
  payloadsIn(history)
    .map((payload) => decoded(payload.data ?? ''))
    .join('\n');

async function decodeThrough(server: CodecServer, token: string, payloads: unknown[]): Promise<Response> {
  return fetch(`${server.url}/decode`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ payloads }),
  });
}

describe('encrypted payloads', { skip: !process.env.CANOPY_TEST_TEMPORAL_ADDRESS && 'needs the dev server `npm test` starts' }, () => {
  const current = randomKey('k1');
  let h: EngineHarness;
  let server: CodecServer;
  let token: string;
  before(async () => {
    h = await engineHarness({ CANOPY_PAYLOAD_KEYS: payloadKeysText([current]), CANOPY_CODEC_ADDRESS: `127.0.0.1:${await freePort()}` });
    server = await serveCanopyCodec(h.config);
    token = await codecToken(h.config.home);
  });
  after(async () => {
    await server?.close();
    await h?.close();
  });

  it('keeps spec, prompt and output out of the history, and canopy and the codec read them', SLOW, async () => {
    const planted = plantedTexts();
    const loopId = await plantedRun(h, planted);

    const history = await workflowShow(loopId);
    for (const text of Object.values(planted)) assert.ok(!history.includes(text), `the history holds ${text} in the clear`);
    const payloads = payloadsIn(history);
    assert.ok(payloads.length > 10, `the run has payloads (${payloads.length})`);
    for (const payload of payloads) {
      assert.equal(decoded(payload.metadata.encoding), ENCRYPTED_ENCODING);
      assert.equal(decoded(payload.metadata[KEY_ID_METADATA]), 'k1');
    }
    // The same history through the codec endpoint, as the temporal CLI and the Web UI read it.
    const shown = plainTexts(await workflowShow(loopId, { url: server.url, token }));
    for (const text of Object.values(planted)) assert.ok(shown.includes(text), `the decoded history holds ${text}`);

    const response = await decodeThrough(server, token, payloads);
    assert.equal(response.status, 200);
    const plain = ((await response.json()) as { payloads: { data: string }[] }).payloads.map((payload) => decoded(payload.data)).join('\n');
    assert.ok(plain.includes(planted.prompt) && plain.includes(planted.check), 'the codec endpoint decodes the prompt and the output');

    // canopy's own views, from a separate process holding the key.
    const runs = await runCanopy(childEnv(h.config), 'loop', 'runs', loopId);
    assert.equal(runs.status, 0, runs.stderr);
    const info = await runCanopy(childEnv(h.config), 'loop', 'info', loopId);
    assert.equal(info.status, 0, info.stderr);
    assert.match(info.stdout, /tests/);
  });

  it('decodes a run written under an older key after rotation, and writes new runs under the new key', SLOW, async () => {
    const planted = plantedTexts();
    const oldLoop = await plantedRun(h, planted);
    const rotated = await engineHarness({ CANOPY_PAYLOAD_KEYS: payloadKeysText([randomKey('k2'), current]) });
    try {
      const handle = (await rotated.ctx.temporal()).workflow.getHandle(loopWorkflowId(oldLoop));
      assert.equal(
        ((await handle.result()) as { status: string }).status,
        'failed',
        'a client holding the old key second reads the old run',
      );
      const newLoop = await plantedRun(rotated, plantedTexts());
      const keyIds = new Set(payloadsIn(await workflowShow(newLoop)).map((payload) => decoded(payload.metadata[KEY_ID_METADATA])));
      assert.deepEqual([...keyIds], ['k2']);

      const rotatedServer = await serveCanopyCodec({ ...rotated.config, codecAddress: '127.0.0.1:0' });
      try {
        const rotatedToken = await codecToken(rotated.config.home);
        const shown = plainTexts(await workflowShow(oldLoop, { url: rotatedServer.url, token: rotatedToken }));
        assert.ok(shown.includes(planted.spec), 'the old run decodes with the old key listed second');
      } finally {
        await rotatedServer.close();
      }
    } finally {
      await rotated.close();
    }
  });

  it('fails the workflow task of a worker without the key, naming the key id', SLOW, async () => {
    const starter = await openContext({ ...h.config, payloadKeys: [randomKey('retired')] });
    try {
      const loopId = await loopWithSpecs(starter, scratchDir(), linked(check('only', 1, 'true')), [{ name: 'spec' }]);
      await startLoopRun(starter, loopId);
      const handle = (await starter.temporal()).workflow.getHandle(loopWorkflowId(loopId));
      const failure = await h.withWorker(() =>
        waitUntil('a failed workflow task', async () => {
          const events = (await handle.fetchHistory()).events ?? [];
          return events.find((event) => event.workflowTaskFailedEventAttributes)?.workflowTaskFailedEventAttributes?.failure;
        }),
      );
      // The failure's message is encrypted with the rest: the worker's key reads it.
      const [attributes] = await encryptionCodec([current]).decode([failure.encodedAttributes!]);
      const { message } = JSON.parse(Buffer.from(attributes.data!).toString('utf8')) as { message: string };
      assert.match(message, /encrypted with key 'retired', which this process does not have/);
      assert.match(message, /holds only 'k1'/);
      await handle.terminate('the test is over');
    } finally {
      await starter.close();
    }
  });
});

describe('the codec endpoint', () => {
  const key = randomKey('k1');
  let server: CodecServer;
  let token: string;
  let home: string;
  before(async () => {
    const h = await engineHarness({ CANOPY_PAYLOAD_KEYS: payloadKeysText([key]), CANOPY_CODEC_ADDRESS: '127.0.0.1:0' });
    home = h.config.home;
    server = await serveCanopyCodec(h.config, ['http://ui.example:8080']);
    token = await codecToken(home);
    await h.close();
  });
  after(async () => server?.close());

  const plainPayload = {
    metadata: { encoding: Buffer.from('json/plain').toString('base64') },
    data: Buffer.from('"hello"').toString('base64'),
  };

  it('encodes and decodes with the token in a header or in the path, and refuses without it', async () => {
    const encoded = await fetch(`${server.url}/${token}/encode`, { method: 'POST', body: JSON.stringify({ payloads: [plainPayload] }) });
    assert.equal(encoded.status, 200);
    const sealed = ((await encoded.json()) as { payloads: { metadata: Record<string, string>; data: string }[] }).payloads;
    assert.equal(decoded(sealed[0].metadata.encoding), ENCRYPTED_ENCODING);
    assert.ok(!decoded(sealed[0].data).includes('hello'));
    const opened = await decodeThrough(server, token, sealed);
    assert.deepEqual(((await opened.json()) as { payloads: unknown[] }).payloads, [plainPayload]);

    for (const [what, response] of [
      ['no token', await fetch(`${server.url}/decode`, { method: 'POST', body: '{"payloads":[]}' })],
      ['a wrong token', await decodeThrough(server, 'not-the-token', sealed)],
      ['a wrong token in the path', await fetch(`${server.url}/wrong/decode`, { method: 'POST', body: '{"payloads":[]}' })],
    ] as const) {
      assert.equal(response.status, 401, what);
      assert.match(((await response.json()) as { message: string }).message, /codec token/);
    }
  });

  it('refuses what is not a request for its codec, saying what to send', async () => {
    const post = (body: string) => fetch(`${server.url}/decode`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body });
    const cases: [string, Response, number, RegExp][] = [
      ['a GET', await fetch(`${server.url}/decode`, { headers: { Authorization: `Bearer ${token}` } }), 405, /POST/],
      ['another path', await fetch(`${server.url}/other`, { method: 'POST' }), 404, /\/encode or \/decode/],
      ['a body not JSON', await post('nope'), 400, /not JSON/],
      ['no payloads', await post('{"items":[]}'), 400, /no "payloads" array/],
      [
        'a key it lacks',
        await post(
          JSON.stringify({
            payloads: [
              {
                metadata: {
                  encoding: Buffer.from(ENCRYPTED_ENCODING).toString('base64'),
                  [KEY_ID_METADATA]: Buffer.from('gone').toString('base64'),
                },
                data: '',
              },
            ],
          }),
        ),
        422,
        /encrypted with key 'gone'/,
      ],
    ];
    for (const [what, response, status, message] of cases) {
      assert.equal(response.status, status, what);
      assert.match(((await response.json()) as { message: string }).message, message, what);
    }
  });

  it('lets the UI’s origin call it from a browser, and no other', async () => {
    const preflight = (origin: string) =>
      fetch(`${server.url}/decode`, { method: 'OPTIONS', headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' } });
    const allowed = await preflight('http://ui.example:8080');
    assert.equal(allowed.status, 204);
    assert.equal(allowed.headers.get('access-control-allow-origin'), 'http://ui.example:8080');
    assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /X-Namespace/);
    assert.equal((await preflight('http://elsewhere.example')).headers.get('access-control-allow-origin'), null);
  });

  it('is not served without payload keys, and canopy codec-server says which variable to set', async () => {
    const result = await runCanopy(
      { ...process.env, CANOPY_HOME: home, CANOPY_PAYLOAD_KEYS: '', CANOPY_PAYLOAD_KEYS_FILE: '' },
      'codec-server',
    );
    assert.equal(result.status, 2);
    assert.match(result.stderr, /CANOPY_PAYLOAD_KEYS/);
  });
});
