// Agents and checks are the untrusted part of canopy: confined by bubblewrap, neither finds canopy's
// home (the operator's MCP token, config.json with API keys, the store), another run's directory, or
// another node process (whose environment holds that run's token); both write their workdir and a
// /tmp of their own. `confine: false` in config.json or a loop's settings turns it off, and doctor
// and a worker's start-up say which applies.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startLoopRun, waitForLoopRun } from '../../src/client/runs-service';
import { confinementSupport } from '../../src/process/confinement';
import { childEnv, useEngineHarness, withConfigChanges } from '../helpers/engine';
import { tempGitRepo } from '../helpers/git';
import { agent, check, linked, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';
import { runCanopy, spawnCanopy, waitForOutput } from '../helpers/processes';
import { waitUntil } from '../helpers/wait';

const SLOW = { timeout: 120_000 };
const support = confinementSupport();
const skip = support.available ? false : `bwrap cannot confine here: ${support.reason}`;

/** A shell line that prints, for each path, whether it can be read (a file) or listed (a directory). */
const probeScript = (paths: string[]) =>
  paths
    .map((p) => `if cat '${p}' >/dev/null 2>&1 || ls '${p}' >/dev/null 2>&1; then echo 'read ${p}: ok'; else echo 'read ${p}: no'; fi`)
    .join('; ');

const readLines = (output: string) => output.split('\n').filter((line) => line.startsWith('read '));

describe('confinement of agents and checks', () => {
  const h = useEngineHarness();

  /** What a node of another loop must not reach while `victim`'s agent runs: canopy's files, its run directory, its process. */
  async function secretsWhileAnotherAgentRuns(): Promise<{ paths: string[]; victimLoop: string }> {
    const { home } = h.config;
    writeFileSync(path.join(home, 'mcp-token'), 'the-operator-token', { mode: 0o600 });
    const victimLoop = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [agent('victim', 1, '@print holding\n@sleep 20')] }, [
      { name: 'v' },
    ]);
    await startLoopRun(h.ctx, victimLoop);
    const victim = await waitUntil('the victim agent to start', async () => (await runsOf(h.ctx, victimLoop)).find((r) => r.pgid !== null));
    const runDir = path.join(home, 'runs', victim.id);
    await waitUntil('the victim to print', () => Promise.resolve(existsSync(path.join(runDir, 'stdout'))));
    const paths = [
      path.join(home, 'mcp-token'),
      path.join(home, 'config.json'),
      path.join(home, 'canopy.db'),
      runDir,
      path.join(runDir, 'stdout'),
      `/proc/${victim.pgid}/environ`,
    ];
    // Unconfined, every one of them is there to read: the test would prove nothing otherwise.
    for (const p of paths) readFileOrList(p);
    assert.match(readFileSync(`/proc/${victim.pgid}/environ`, 'utf8'), /CANOPY_RUN_TOKEN=/);
    return { paths, victimLoop };
  }

  it(
    'a check and an agent find none of canopy home, another run or another process, and write their workdir and own /tmp',
    { ...SLOW, skip },
    () =>
      h.withWorker(async () => {
        const { paths, victimLoop } = await secretsWhileAnotherAgentRuns();
        const workdir = tempGitRepo();
        const ownTmp = `/tmp/canopy-confined-${path.basename(workdir)}`;
        const loopId = await loopWithSpecs(
          h.ctx,
          workdir,
          linked(
            check('prober', 1, `${probeScript(paths)}; echo mine > '${ownTmp}' && cat '${ownTmp}' && echo checked > by-check.txt`),
            agent('reader', 2, [...paths.map((p) => `@read ${p}`), '@write by-agent.txt agent', '@commit from inside'].join('\n')),
          ),
          [{ name: 'spec' }],
        );
        const result = await runToEnd(h.ctx, loopId);
        assert.equal(result.status, 'completed', result.reason ?? '');
        const [prober, reader] = await runsOf(h.ctx, loopId);
        const none = paths.map((p) => `read ${p}: no`);
        assert.deepEqual(readLines(prober.stdout), none);
        assert.match(prober.stdout, /^mine$/m);
        assert.deepEqual(
          readLines(reader.stdout),
          paths.map((p) => `read ${p}: ENOENT`),
        );
        assert.equal(readFileSync(path.join(workdir, 'by-check.txt'), 'utf8'), 'checked\n');
        assert.equal(readFileSync(path.join(workdir, 'by-agent.txt'), 'utf8'), 'agent');
        assert.ok(!existsSync(ownTmp), 'the /tmp file the check wrote stayed in its own /tmp');
        assert.equal((await waitForLoopRun(h.ctx, victimLoop)).status, 'completed');
      }),
  );

  it('confine: false in a loop settings or in config.json runs its nodes unconfined', { ...SLOW, skip }, () =>
    h.withWorker(async () => {
      const token = path.join(h.config.home, 'mcp-token');
      writeFileSync(token, 'the-operator-token', { mode: 0o600 });
      const reads = check('prober', 1, probeScript([token]));
      const unconfined = await loopWithSpecs(h.ctx, scratchDir(), { settings: { confine: false }, nodes: [reads] }, [{ name: 'spec' }]);
      const confined = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [reads] }, [{ name: 'spec' }]);
      assert.equal((await runToEnd(h.ctx, unconfined)).status, 'completed');
      assert.equal((await runToEnd(h.ctx, confined)).status, 'completed');
      assert.deepEqual(readLines((await runsOf(h.ctx, unconfined))[0].stdout), [`read ${token}: ok`]);
      assert.deepEqual(readLines((await runsOf(h.ctx, confined))[0].stdout), [`read ${token}: no`]);

      await withConfigChanges(h.config.home, { confine: false }, async () => {
        const again = await loopWithSpecs(h.ctx, scratchDir(), { nodes: [reads] }, [{ name: 'spec' }]);
        assert.equal((await runToEnd(h.ctx, again)).status, 'completed');
        assert.deepEqual(readLines((await runsOf(h.ctx, again))[0].stdout), [`read ${token}: ok`]);
      });
    }),
  );

  it('doctor says whether nodes run confined, and names the loops whose settings turn it off', { ...SLOW, skip }, async () => {
    const env = childEnv(h.config);
    const on = JSON.parse((await runCanopy(env, 'doctor', '--json')).stdout) as { confinement: Record<string, unknown> };
    assert.equal(on.confinement.confined, true);
    assert.match(String(on.confinement.detail), /confined by .*bwrap/);

    await loopWithSpecs(h.ctx, scratchDir(), { settings: { confine: false }, nodes: [check('c', 1, 'true')] }, []);
    await withConfigChanges(h.config.home, { confine: false }, async () => {
      const off = await runCanopy(env, 'doctor');
      assert.match(off.stdout, /^-- confinement {2}agents and checks run unconfined \(.*config\.json says confine: false\)/m);
      assert.match(off.stdout, /^-- confinement {2}off in the settings of loop\(s\) 'engine test'/m);
    });
  });

  it('where bwrap is missing, doctor and a starting worker say that nodes run unconfined', SLOW, async () => {
    const bin = mkdtempSync(path.join(os.tmpdir(), 'canopy-no-bwrap-'));
    for (const tool of ['sh', 'bash', 'git']) symlinkSync(`/usr/bin/${tool}`, path.join(bin, tool));
    const env = { ...childEnv(h.config), PATH: bin };
    const doctor = await runCanopy(env, 'doctor');
    assert.match(doctor.stdout, /^NO confinement {2}agents and checks run unconfined \(bwrap is not on PATH/m);
    const worker = spawnCanopy(['worker'], env);
    try {
      await waitForOutput(worker, /Worker polling/);
      assert.match(worker.output(), /Confinement: agents and checks run unconfined \(bwrap is not on PATH/);
    } finally {
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
  });
});

function readFileOrList(p: string): void {
  try {
    readFileSync(p);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EISDIR') throw error;
  }
}
