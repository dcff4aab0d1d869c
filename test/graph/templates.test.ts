import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  AGENT_PLACEHOLDERS,
  CHECK_PLACEHOLDERS,
  HOOK_PLACEHOLDERS,
  hookVariable,
  placeholderEnv,
  placeholdersIn,
  renderTemplate,
  toShellScript,
  unknownPlaceholders,
} from '../../src/graph';

test('placeholdersIn lists each name once, in order, tolerating inner spaces', () => {
  assert.deepEqual(placeholdersIn('{{ spec_name }}: {{spec_content}} again {{spec_name}}'), ['spec_name', 'spec_content']);
});

test('foreign template syntax is not a placeholder', () => {
  assert.deepEqual(placeholdersIn(`docker inspect --format '{{.State.Running}}' {{ json . }} {{}}`), []);
});

test('check commands allow the two git heads that agent prompts do not', () => {
  const text = 'test "$(git rev-parse HEAD)" = "{{spec_committed_head}}" && echo {{spec_start_head}} {{round}}';
  assert.deepEqual(unknownPlaceholders(text, AGENT_PLACEHOLDERS), ['spec_committed_head', 'spec_start_head']);
  assert.deepEqual(unknownPlaceholders(text, CHECK_PLACEHOLDERS), []);
});

test('each hook event has its own small set', () => {
  const text = '{{loop_name}} {{completed_specs}} {{spec_id}} {{reason}}';
  assert.deepEqual(unknownPlaceholders(text, HOOK_PLACEHOLDERS.on_completed), ['spec_id', 'reason']);
  assert.deepEqual(unknownPlaceholders(text, HOOK_PLACEHOLDERS.on_spec_completed), ['reason']);
  assert.deepEqual(unknownPlaceholders(text, HOOK_PLACEHOLDERS.on_failed), ['completed_specs', 'spec_id']);
  assert.deepEqual(unknownPlaceholders('{{blocker}} {{node}} {{spec_name}} {{loop_id}} {{workdir}}', HOOK_PLACEHOLDERS.on_blocked), []);
});

test('a hook command turns placeholders into CANOPY_HOOK_ variables', () => {
  assert.equal(toShellScript('notify "{{reason}}" {{ node }}', hookVariable), 'notify "${CANOPY_HOOK_REASON}" ${CANOPY_HOOK_NODE}');
});

test('renderTemplate substitutes values once and leaves names without a value alone', () => {
  const values = { spec_name: 'Add {{round}} $& $1', round: '3' };
  assert.equal(renderTemplate('{{spec_name}} / {{ round }} / {{workdir}}', values), 'Add {{round}} $& $1 / 3 / {{workdir}}');
});

test('toShellScript turns placeholders into environment variables that placeholderEnv fills', () => {
  const script = toShellScript('test -n "{{spec_committed_head}}" && echo {{ round }}');
  assert.equal(script, 'test -n "${CANOPY_SPEC_COMMITTED_HEAD}" && echo ${CANOPY_ROUND}');
  assert.deepEqual(placeholderEnv({ round: '2', spec_start_head: 'abc' }), { CANOPY_ROUND: '2', CANOPY_SPEC_START_HEAD: 'abc' });
});

test('spec text cannot inject shell code into a check command', () => {
  const injected = '$(touch pwned); "; rm -rf x';
  const script = toShellScript('printf "%s" "{{spec_content}}" > out.txt');
  assert.ok(!script.includes(injected), script);
  assert.ok(!script.includes('pwned'), script);

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'canopy-templates-'));
  try {
    fs.mkdirSync(path.join(dir, 'x'));
    execFileSync('bash', ['-c', script], { cwd: dir, env: { ...process.env, ...placeholderEnv({ spec_content: injected }) } });
    assert.equal(fs.readFileSync(path.join(dir, 'out.txt'), 'utf8'), injected);
    assert.ok(!fs.existsSync(path.join(dir, 'pwned')), 'the command substitution ran');
    assert.ok(fs.existsSync(path.join(dir, 'x')), 'the rm ran');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
