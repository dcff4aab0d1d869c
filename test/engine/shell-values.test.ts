// What holds for placeholder values in check commands: they never become shell syntax, but a
// command that hands a value to an evaluating context (bash arithmetic here) evaluates it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { useEngineHarness } from '../helpers/engine';
import { check, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';

describe('placeholder values in check commands', () => {
  const h = useEngineHarness();

  it('never run as shell code when the command quotes them, or even leaves them bare', async () => {
    const workdir = scratchDir();
    const marker = (name: string) => path.join(workdir, name);
    const names = [
      `$(touch ${marker('substituted')})`,
      `\`touch ${marker('backticks')}\``,
      `a; touch ${marker('separated')}`,
      `a[$(touch ${marker('subscript')})]`,
    ];
    const loopId = await loopWithSpecs(
      h.ctx,
      workdir,
      { nodes: [check('quoted', 1, 'echo "{{spec_name}}"; echo {{spec_name}}; test "{{spec_name}}" = "{{spec_name}}"')] },
      names.map((name) => ({ name })),
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed');
    const runs = await runsOf(h.ctx, loopId);
    assert.deepEqual(
      runs.map((run) => run.stdout.split('\n')[0]),
      names,
      'each value is printed as the text it is',
    );
    for (const name of ['substituted', 'backticks', 'separated', 'subscript']) assert.equal(existsSync(marker(name)), false, `${name} ran`);
  });

  it('are evaluated by bash arithmetic, as documented: [[ "{{spec_name}}" -gt 3 ]] runs a $(…) in an array subscript', async () => {
    const workdir = scratchDir();
    const marker = path.join(workdir, 'evaluated');
    const loopId = await loopWithSpecs(h.ctx, workdir, { nodes: [check('arithmetic', 1, '[[ "{{spec_name}}" -gt 3 ]]; true')] }, [
      { name: `a[$(touch ${marker})]` },
    ]);
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed');
    assert.equal(
      existsSync(marker),
      true,
      'bash arithmetic evaluated the value: a command must not give values to arithmetic, eval or bash -c',
    );
  });
});
