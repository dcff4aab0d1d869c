// Values over the inline bound become files in the run directory; small ones travel as they are.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { agentPrompt, INLINE_VALUE_BYTES, placeholderEnvironment } from '../../src/activities/large-values';
import { tempDir } from '../helpers/store';

it('writes a value over the bound to <name>.txt and passes a marked excerpt and the path', () => {
  const home = tempDir();
  const content = 'é'.repeat(INLINE_VALUE_BYTES); // two bytes each: over the bound in bytes, not in characters
  const env = placeholderEnvironment(
    { home, nodeRunId: 'nrun_1' },
    { spec_content: content, round: '2' },
    'wc -c "${CANOPY_SPEC_CONTENT}"',
  );
  assert.equal(env.CANOPY_ROUND, '2');
  assert.equal(env.CANOPY_ROUND_FILE, undefined);
  const file = path.join(home, 'runs', 'nrun_1', 'spec_content.txt');
  assert.equal(env.CANOPY_SPEC_CONTENT_FILE, file);
  assert.equal(readFileSync(file, 'utf8'), content);
  assert.equal(statSync(file).mode & 0o777, 0o600);
  assert.equal(statSync(path.dirname(file)).mode & 0o777, 0o700);
  assert.match(env.CANOPY_SPEC_CONTENT, /\n\[canopy: truncated; the full value \(131072 bytes\) is in \$CANOPY_SPEC_CONTENT_FILE\]$/);
  assert.ok(Buffer.byteLength(env.CANOPY_SPEC_CONTENT) < INLINE_VALUE_BYTES);
});

it('writes a large value only for a script that names its variable or its file', () => {
  const home = tempDir();
  const values = { previous_output: 'o'.repeat(INLINE_VALUE_BYTES + 1) };
  const dir = path.join(home, 'runs', 'nrun_3');
  const unread = placeholderEnvironment({ home, nodeRunId: 'nrun_3' }, values, 'make test');
  assert.equal(unread.CANOPY_PREVIOUS_OUTPUT_FILE, undefined);
  assert.equal(existsSync(dir), false, 'no file, nor the directory for it');
  assert.match(
    unread.CANOPY_PREVIOUS_OUTPUT,
    /^o{8192}\n\[canopy: truncated; the full value \(65537 bytes\) is not written, as the command does not name it\]$/,
  );

  const read = placeholderEnvironment({ home, nodeRunId: 'nrun_3' }, values, 'tail -c 7 "$CANOPY_PREVIOUS_OUTPUT_FILE"');
  assert.equal(readFileSync(read.CANOPY_PREVIOUS_OUTPUT_FILE, 'utf8'), values.previous_output);
});

it('writes the prompt to prompt.md, keeps one that fits in argv, and points the agent at the file otherwise', () => {
  const home = tempDir();
  const short = agentPrompt({ home, nodeRunId: 'nrun_2' }, 'short');
  assert.deepEqual(short, { prompt: 'short', file: short.file, env: { CANOPY_PROMPT_FILE: short.file } });
  assert.equal(readFileSync(short.file, 'utf8'), 'short');
  const long = 'p'.repeat(INLINE_VALUE_BYTES + 1);
  const { prompt, env } = agentPrompt({ home, nodeRunId: 'nrun_2' }, long);
  assert.equal(readFileSync(env.CANOPY_PROMPT_FILE, 'utf8'), long);
  assert.ok(prompt.includes(env.CANOPY_PROMPT_FILE) && prompt.length < 500, prompt);
});
