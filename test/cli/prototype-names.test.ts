// Names like the keys every JavaScript object inherits (`__proto__`, `constructor`) are names like
// any other in what the CLI shows: nodes in progress, loop info, loop watch, loop get and loop
// runs, and agent platforms in loop preflight.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { childEnv, useEngineHarness } from '../helpers/engine';
import { scratchDir } from '../helpers/loops';
import { runCanopy, spawnCanopy, waitForOutput } from '../helpers/processes';

const NAMES = ['__proto__', 'constructor'];
/** What an inherited value looks like when it is printed as a node's state. */
const INHERITED = /\[object Object\]|native code|undefined/;

/** Imports a loop of `nodes` (and `edges`) in a fresh workdir with one pending spec, through the CLI. */
async function importedLoop(env: NodeJS.ProcessEnv, nodes: object[], edges: object[] = []): Promise<string> {
  const workdir = scratchDir();
  const file = path.join(workdir, 'loop.json');
  writeFileSync(file, JSON.stringify({ format_version: 1, name: 'proto loop', description: '', nodes, edges, ensembles: [] }));
  const imported = await runCanopy(env, 'loop', 'import', file, '--workdir', workdir, '--json');
  assert.equal(imported.status, 0, imported.stderr);
  const { loop_id: loopId } = JSON.parse(imported.stdout) as { loop_id: string };
  const spec = await runCanopy(env, 'spec', 'create', '--loop', loopId, '--name', 'first', '--content', 'do it');
  assert.equal(spec.status, 0, spec.stderr);
  return loopId;
}

describe('names __proto__ and constructor in the CLI', () => {
  const h = useEngineHarness();

  it('as nodes are shown with their own states by loop run --wait, loop info, loop watch, loop get and loop runs', async () => {
    const env = childEnv(h.config);
    const nodes = NAMES.map((name, index) => ({ name, kind: 'check', position: index + 1, config: { command: `echo ${name}` } }));
    const loopId = await importedLoop(env, nodes, [{ source: '__proto__', target: 'constructor', condition: 'pass' }]);
    // No worker serves this host at first, so the run holds (the claim of its spec waits on the
    // host's queue) with no node begun: the live state then names no node, and every node's state
    // is looked up by name.
    assert.equal((await runCanopy(env, 'loop', 'update', loopId, '--host', 'elsewhere')).status, 0);

    const { run, info, watch } = await h.withWorker(async () => {
      const run = spawnCanopy(['loop', 'run', loopId, '--wait'], env);
      await waitForOutput(run, /loop proto loop running/);
      const info = await runCanopy(env, 'loop', 'info', loopId);
      const watch = spawnCanopy(['loop', 'watch', loopId], env);
      await waitForOutput(watch, /loop proto loop running/);
      const elsewhere = spawnCanopy(['worker'], { ...env, CANOPY_HOST_ID: 'elsewhere' });
      await Promise.all([run.exited, watch.exited]);
      elsewhere.child.kill('SIGINT');
      await elsewhere.exited;
      return { run, info, watch };
    });
    const progress = run
      .output()
      .split('\n')
      .filter((line) => line.startsWith('… '));
    assert.deepEqual(
      progress.filter((line) => INHERITED.test(line)),
      [],
      'loop run --wait',
    );
    const watched = watch.output().trim().split('\n');
    assert.deepEqual(
      watched.filter((line) => INHERITED.test(line)),
      [],
      'loop watch',
    );
    for (const name of NAMES) assert.ok(watched.includes(`${name} pass`), watch.output());
    assert.equal(await run.exited, 0, run.output());
    assert.equal(await watch.exited, 0, watch.output());
    assert.equal(info.status, 0, `loop info: ${info.stderr}`);
    for (const name of NAMES) assert.match(info.stdout, new RegExp(`^  pending  ${name}  round 1`, 'm'), info.stdout);

    const detail = await runCanopy(env, 'loop', 'get', loopId);
    assert.equal(detail.status, 0, detail.stderr);
    for (const name of NAMES) assert.match(detail.stdout, new RegExp(`\\s${name}\\s+check\\s`), detail.stdout);
    const runs = await runCanopy(env, 'loop', 'runs', loopId);
    assert.equal(runs.status, 0, runs.stderr);
    for (const name of NAMES) assert.match(runs.stdout, new RegExp(`\\s${name}\\s+1\\s+pass\\s`), runs.stdout);
    const done = await runCanopy(env, 'loop', 'info', loopId);
    for (const name of NAMES) assert.match(done.stdout, new RegExp(`^  pass     ${name}  round 1`, 'm'), done.stdout);
  });

  it('as agent platforms no config names are refused by loop preflight, naming each', async () => {
    const env = childEnv(h.config);
    const nodes = NAMES.map((platform, index) => ({
      name: `agent-${index + 1}`,
      kind: 'agent',
      position: index + 1,
      config: { platform, prompt_template: 'do it' },
    }));
    const loopId = await importedLoop(env, nodes);
    const preflight = await runCanopy(env, 'loop', 'preflight', loopId);
    assert.equal(preflight.status, 1, preflight.stderr);
    for (const name of NAMES) assert.match(preflight.stdout, new RegExp(`^NO\\s+platform ${name}\\s+not configured; known: claude, `, 'm'));
  });
});
