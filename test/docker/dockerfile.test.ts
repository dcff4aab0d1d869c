// The worker image's Dockerfile, read without Docker: it runs the image's build script, copies only what the
// repository holds, runs as an unprivileged user, and puts the agent CLIs on PATH.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { PROJECT_ROOT } from '../../src/project';
import { DOCKERFILE, dockerfileProblems, imageEnv } from './dockerfile';

const text = readFileSync(DOCKERFILE, 'utf8');

it('the Dockerfile runs docker/worker-image.sh, copies what exists, runs as canopy and finds the agents on PATH', () => {
  assert.deepEqual(dockerfileProblems(text, PROJECT_ROOT), []);
  assert.equal(imageEnv(text).CANOPY_HOME, '/var/lib/canopy');
});

it('names each fault planted in a copy of the Dockerfile', () => {
  const planted = text
    .replace('COPY bench ./bench', 'COPY benches ./bench')
    .replace(/^RUN sh docker\/worker-image\.sh.*$/m, 'RUN npm ci')
    .replace(/^USER canopy$/m, 'USER root')
    .replace(/^ENV PATH=.*$/m, 'ENV PATH=/usr/local/bin:/usr/bin:/bin');
  assert.deepEqual(dockerfileProblems(planted, PROJECT_ROOT), [
    'COPY benches: not in the repository',
    'RUN: none runs docker/worker-image.sh',
    'USER: root, not an unprivileged user',
    "ENV PATH: lacks the agent CLIs' /opt/canopy/.tools/agents/node_modules/.bin",
  ]);
  assert.deepEqual(dockerfileProblems(planted.replace(/^USER root$/m, ''), PROJECT_ROOT)[2], 'USER: none, not an unprivileged user');
});
