// What `canopy tui` makes of typed input, without a terminal: the one-line graph edits read into the
// graph service's requests, and the built-in editor's keys.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Key } from 'ink' with { 'resolution-mode': 'import' };
import { edgeRequest, nodeRequest } from '../../src/cli/tui/graph-input';
import { NO_KEY } from '../helpers/terminal';

describe('canopy tui input', () => {
  it('reads a node line as kind, name and config, or a blueprint with overrides', () => {
    assert.deepEqual(nodeRequest('check tests {"command": "npm test"}'), {
      kind: 'check',
      name: 'tests',
      blueprint: undefined,
      config: { command: 'npm test' },
    });
    assert.deepEqual(nodeRequest('  impl @implementer-claude {"timeout_minutes":30}'), {
      kind: undefined,
      name: 'impl',
      blueprint: 'implementer-claude',
      config_overrides: { timeout_minutes: 30 },
    });
    assert.deepEqual(nodeRequest('agent impl @implementer-claude'), {
      kind: 'agent',
      name: 'impl',
      blueprint: 'implementer-claude',
      config_overrides: undefined,
    });
  });

  it('refuses a line of another shape, or a config that is not a JSON object, naming the syntax or the field', () => {
    assert.throws(() => nodeRequest('check my tests {"command":"x"}'), /^CanopyError: Type kind name \{json config\}/);
    assert.throws(() => nodeRequest('{"command":"x"}'), /^CanopyError: Type kind name/);
    assert.throws(
      () => nodeRequest('check tests {"command":'),
      (error: { issues: { field: string }[] }) => error.issues[0].field === '(json)',
    );
    assert.throws(
      () => nodeRequest('check tests {} []'),
      (error: { issues: { field: string }[] }) => error.issues[0].field === '(json)',
    );
    assert.throws(() => edgeRequest('tests'), /^CanopyError: Type source target/);
    assert.throws(() => edgeRequest('a b pass loopback extra'), /^CanopyError: Type source target/);
  });

  it('reads an edge line as source, target and the condition and type when given', () => {
    assert.deepEqual(edgeRequest('tests fixer'), { source: 'tests', target: 'fixer', condition: undefined, type: undefined });
    assert.deepEqual(edgeRequest(' fixer  impl always loopback '), {
      source: 'fixer',
      target: 'impl',
      condition: 'always',
      type: 'loopback',
    });
  });

  it('edits a text in the built-in editor: typing, Enter, Backspace across lines, arrows across line ends, pasted lines', async () => {
    const { areaKey, areaText, textArea } = await import('../../src/cli/tui/text-area.mjs');
    const keys = (text: string, ...presses: [string, Partial<Key>][]) =>
      presses.reduce((area, [input, key]) => areaKey(area, input, { ...NO_KEY, ...key }), textArea(text));
    assert.equal(areaText(keys('{}\n', ['', { rightArrow: true }], ['', { return: true }], ['"a": 1', {}])), '{\n"a": 1}\n');
    assert.equal(areaText(keys('ab\ncd\n', ['', { downArrow: true }], ['', { backspace: true }])), 'abcd\n');
    assert.equal(areaText(keys('ab\ncd\n', ['', { end: true }], ['', { rightArrow: true }], ['x', {}])), 'ab\nxcd\n');
    assert.equal(areaText(keys('ab\ncd\n', ['', { downArrow: true }], ['', { leftArrow: true }], ['', { delete: true }])), 'a\ncd\n');
    const pasted = keys('[]\n', ['', { rightArrow: true }], ['1,\r2', {}]);
    assert.equal(areaText(pasted), '[1,\n2]\n');
    assert.deepEqual([pasted.row, pasted.col], [1, 1]);
    assert.equal(areaText(keys('ab\n', ['s', { ctrl: true }], ['', { upArrow: true }], ['', { backspace: true }])), 'ab\n');
  });
});
