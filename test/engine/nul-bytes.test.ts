// Output holding NUL bytes is data like any other: the store keeps it whole, on SQLite and on
// PostgreSQL, and the nodes after it receive it with each NUL replaced by U+2400 (␀), the one form
// an environment variable, an argv string and a file all carry alike.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { childEnv } from '../helpers/engine';
import { describeEngineOnEachDialect } from '../helpers/engine-dialects';
import { runCanopy } from '../helpers/processes';
import { agent, check, linked, loopWithSpecs, runsOf, runToEnd, scratchDir } from '../helpers/loops';

/** Past the inline bound, so the value also travels through a file of the run directory. */
const LARGE = 100_000;

describeEngineOnEachDialect('NUL bytes in output', (h) => {
  it('are stored whole and reach the next nodes as ␀, in the environment, templates and large-value files', async () => {
    const loopId = await loopWithSpecs(
      h.ctx,
      scratchDir(),
      linked(
        check('binary', 1, "printf 'a\\0b\\n'; printf 'e\\0rr' >&2"),
        // It never uses the value, which its environment carries all the same.
        check('unmoved', 2, "printf 'plain\\0\\n'"),
        check('relay', 3, 'printf "%s" "{{previous_output}}"'),
        agent('reader', 4, '@print the agent read {{previous_output}}'),
        check('large', 5, `head -c ${LARGE} /dev/zero | tr "\\0" "x"; printf '\\0end'`),
        check('from-file', 6, 'tail -c 7 "$CANOPY_PREVIOUS_OUTPUT_FILE"; echo; echo "{{previous_feedback}}"'),
      ),
      [{ name: 'spec' }],
    );
    const result = await h.withWorker(() => runToEnd(h.ctx, loopId));
    assert.equal(result.status, 'completed', result.reason ?? '');
    const runs = await runsOf(h.ctx, loopId);
    const run = (name: string) => runs.find((r) => r.node_name === name)!;
    assert.deepEqual([run('binary').stdout, run('binary').stderr], ['a\0b\n', 'e\0rr'], 'the store keeps the NUL bytes');
    const shown = await runCanopy(childEnv(h.config), 'loop', 'run-get', run('binary').id, '--json');
    assert.equal((JSON.parse(shown.stdout) as { stdout: string }).stdout, 'a\0b\n', 'loop run-get --json shows them');
    assert.deepEqual([run('unmoved').status, run('unmoved').stdout], ['pass', 'plain\0\n']);
    assert.equal(run('relay').stdout, 'plain␀\n', 'the environment carries ␀');
    assert.equal(run('reader').stdout, 'the agent read plain␀\n', 'the prompt in argv carries ␀');
    assert.equal(run('large').stdout, `${'x'.repeat(LARGE)}\0end`);
    const [fromFile, feedback] = run('from-file').stdout.split('\n');
    assert.equal(fromFile, 'x␀end', 'the large value file carries ␀');
    assert.match(feedback, /x\\u0000end"\}$/, '{{previous_feedback}} is JSON, where the NUL is escaped exactly');
  });
});
