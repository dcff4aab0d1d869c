// docker-compose.yml checked against the repository without Docker: the services it names, the files it mounts and
// the environment the canopy worker needs. Each fault planted in a copy is reported, naming the service and field.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../src/project';
import { composeProblems } from './compose-problems';

const COMPOSE = readFileSync(path.join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8');
const root = mkdtempSync(path.join(os.tmpdir(), 'canopy-compose-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** The problems of an edited compose file in a copy of what it refers to, less the files removed. */
function plantedProblems(edit: (text: string) => string, removed: string[] = []): string[] {
  const dir = mkdtempSync(path.join(root, 'repo-'));
  for (const kept of ['Dockerfile', 'docker']) cpSync(path.join(PROJECT_ROOT, kept), path.join(dir, kept), { recursive: true });
  for (const file of removed) rmSync(path.join(dir, file), { recursive: true });
  return composeProblems(edit(COMPOSE), dir);
}

function replaced(text: string, from: string | RegExp, to: string): string {
  const edited = text.replace(from, to);
  assert.notEqual(edited, text, `the compose file still has ${from}`);
  return edited;
}

it('docker-compose.yml has no problems', () => {
  assert.deepEqual(composeProblems(COMPOSE, PROJECT_ROOT), []);
});

describe('faults planted in a copy', () => {
  it('a depends_on naming no service', () => {
    assert.deepEqual(
      plantedProblems((text) => replaced(text, /depends_on:\n\s+- temporal\n/, 'depends_on:\n      - temporl\n')),
      ["temporal-namespace.depends_on: 'temporl' is not a service"],
    );
  });

  it('a script the entrypoint runs missing from the mounted directory', () => {
    assert.deepEqual(
      plantedProblems((text) => text, ['docker/databases.sh']),
      ['databases.entrypoint: /etc/canopy/docker/databases.sh is docker/databases.sh, which does not exist'],
    );
  });

  it('a file an environment variable names missing from the mounted directory', () => {
    assert.deepEqual(
      plantedProblems((text) => text, ['docker/dynamicconfig.yaml']),
      ['temporal.environment: /etc/canopy/docker/dynamicconfig.yaml is docker/dynamicconfig.yaml, which does not exist'],
    );
  });

  it('a bind-mounted directory missing, and an undeclared named volume', () => {
    const problems = plantedProblems(
      (text) => replaced(text, '- canopy-home-b:/var/lib/canopy', '- canopy-home:/var/lib/canopy'),
      ['docker'],
    );
    for (const service of ['databases', 'temporal', 'temporal-namespace'])
      assert.ok(problems.includes(`${service}.volumes: ./docker does not exist`), problems.join('\n'));
    assert.ok(problems.includes("canopy-worker-b.volumes: 'canopy-home' is not a declared volume"), problems.join('\n'));
  });

  it('a build context without a Dockerfile', () => {
    assert.deepEqual(
      plantedProblems((text) => text, ['Dockerfile']),
      ['canopy-worker-a.build: Dockerfile does not exist', 'canopy-worker-b.build: Dockerfile does not exist'],
    );
  });

  it('a worker without the Temporal address or the store', () => {
    assert.deepEqual(
      plantedProblems((text) => replaced(text, /^ {2}CANOPY_DATABASE_URL: .*\n/m, '')),
      ['canopy-worker-a.environment: CANOPY_DATABASE_URL is not set', 'canopy-worker-b.environment: CANOPY_DATABASE_URL is not set'],
    );
    assert.deepEqual(
      plantedProblems((text) => replaced(text, /^ {6}<<: \*canopy-env\n/m, '')),
      ['canopy-worker-a.environment: TEMPORAL_ADDRESS is not set', 'canopy-worker-a.environment: CANOPY_DATABASE_URL is not set'],
    );
  });

  it('an alias of an anchor that is not there, and a merge of one that is no mapping', () => {
    assert.deepEqual(
      plantedProblems((text) => replaced(text, '<<: *canopy-worker\n', '<<: *canopy-workr\n')),
      ['YAML: *canopy-workr names no anchor before it'],
    );
    assert.deepEqual(
      plantedProblems((text) =>
        replaced(replaced(text, 'image: canopy-worker', 'image: &image canopy-worker'), '<<: *canopy-worker\n', '<<: *image\n'),
      ),
      ['YAML: Merge sources must be maps or map aliases'],
    );
  });
});
