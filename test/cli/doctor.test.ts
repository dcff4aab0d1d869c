// `canopy doctor` reports what canopy would use and what answers, for people and as JSON.
import assert from 'node:assert/strict';
import { chmodSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { freePort } from '../../src/temporal/free-port';
import { tempHome, testTemporalAddress } from '../helpers/engine';
import { canopySync } from '../helpers/processes';
import { payloadKeysText, randomKey } from '../helpers/payload-keys';

function doctor(env: NodeJS.ProcessEnv) {
  const result = canopySync({ ...process.env, ...env }, ['doctor', '--json']);
  return { status: result.status, report: JSON.parse(result.stdout) };
}

it('doctor reports the binary, the store and a Temporal server that answers', () => {
  const home = tempHome();
  const { status, report } = doctor({
    CANOPY_HOME: home,
    TEMPORAL_ADDRESS: testTemporalAddress(),
    CANOPY_TASK_QUEUE: `doctor-${path.basename(home)}`,
    CANOPY_HOST_ID: 'doctor-host',
  });
  assert.equal(status, 0);
  assert.equal(report.temporal_reachable, true);
  assert.equal(report.workers_polling, 0);
  assert.equal(report.host_id, 'doctor-host');
  assert.deepEqual(report.hosts, [], 'no worker names a host and no loop lives on one');
  assert.equal(report.store.ok, true);
  assert.equal(report.store.location, `${home}/canopy.db`);
  assert.match(report.temporal_binary.version, /Server 1\.29/);
  assert.ok(report.platforms.some((p: { name: string }) => p.name === 'fake'));
  assert.deepEqual(report.payload_key_ids, []);
});

it('doctor names the payload keys by id, the current one first, and never shows their material', () => {
  const keys = [randomKey('k2'), randomKey('k1')];
  const env = {
    ...process.env,
    CANOPY_HOME: tempHome(),
    TEMPORAL_ADDRESS: testTemporalAddress(),
    CANOPY_PAYLOAD_KEYS: payloadKeysText(keys),
  };
  assert.deepEqual(doctor(env).report.payload_key_ids, ['k2', 'k1']);
  const forPeople = canopySync(env, ['doctor']);
  assert.match(forPeople.stdout, /ok payloads +encrypted with key 'k2'; also decrypted with 'k1'/);
  for (const key of keys) assert.ok(!forPeople.stdout.includes(key.material.toString('base64')));
});

it('doctor warns when config.json is open to group or others, naming the file and chmod 600', () => {
  const home = tempHome();
  const file = path.join(home, 'config.json');
  const env = {
    ...process.env,
    CANOPY_HOME: home,
    TEMPORAL_ADDRESS: testTemporalAddress(),
    CANOPY_TASK_QUEUE: `doctor-${path.basename(home)}`,
  };
  chmodSync(file, 0o600);
  assert.deepEqual(doctor(env).report.config_file, { path: file, mode: '0600', private: true });

  chmodSync(file, 0o644);
  assert.deepEqual(doctor(env).report.config_file, { path: file, mode: '0644', private: false });
  const forPeople = canopySync(env, ['doctor']);
  assert.equal(forPeople.status, 0, forPeople.stderr);
  assert.match(
    forPeople.stdout,
    new RegExp(`NO config +${file} is open to group or others \\(mode 0644\\) and may hold API keys; run \`chmod 600 ${file}\``),
  );
});

it('doctor exits non-zero and says so when Temporal does not answer', async () => {
  const { status, report } = doctor({ CANOPY_HOME: tempHome(), TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` });
  assert.equal(status, 1);
  assert.equal(report.temporal_reachable, false);
  assert.equal(report.workers_polling, null);
  assert.equal(report.hosts, null);
});
