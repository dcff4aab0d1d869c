// `canopy loop hook add|list|remove` and `loop update --on-completed` as real processes: what a person
// types, what they read back, and a refusal that changes nothing for each bad value.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { canopySync, homeOnlyEnv } from '../helpers/processes';
import { directoryIn, tempDir } from '../helpers/store';

describe('canopy loop hook (CLI)', () => {
  let home: string;
  let loopId: string;
  before(() => {
    home = tempDir('canopy-cli-hooks-');
    loopId = JSON.parse(canopy('loop', 'create', '--name', 'hooked', '--workdir', directoryIn(home), '--json').stdout).id;
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  function canopy(...args: string[]) {
    return canopySync(homeOnlyEnv(home), args);
  }
  function ok(...args: string[]) {
    const result = canopy(...args);
    assert.equal(result.status, 0, result.stderr);
    return result.stdout;
  }
  const hooksNow = () => JSON.parse(ok('loop', 'hook', 'list', loopId, '--json'));

  it('adds command and agent hooks, lists them by event and index, and removes one', () => {
    ok('loop', 'hook', 'add', loopId, '--event', 'on_failed', '--command', 'notify "$CANOPY_HOOK_REASON"');
    ok('loop', 'hook', 'add', loopId, '--event', 'on_failed', '--command', 'echo {{node}}', '--timeout-minutes', '2');
    const added = ok(
      'loop',
      'hook',
      'add',
      loopId,
      '--event',
      'on_blocked',
      '--platform',
      'claude',
      '--model',
      'haiku',
      '--prompt',
      'Unblock {{blocker}}',
    );
    assert.match(added, /on_blocked\[0\] agent claude\/haiku: Unblock \{\{blocker\}\}/);
    ok('loop', 'update', loopId, '--on-completed', '{"platform": "claude", "prompt": "Docs for {{completed_specs}}"}');
    assert.equal(
      ok('loop', 'hook', 'list', loopId),
      [
        'on_completed[0] agent claude: Docs for {{completed_specs}}',
        'on_failed[0] command: notify "$CANOPY_HOOK_REASON"',
        'on_failed[1] command: echo {{node}} (timeout 2 min)',
        'on_blocked[0] agent claude/haiku: Unblock {{blocker}}',
        '',
      ].join('\n'),
    );
    assert.match(
      ok('loop', 'get', loopId),
      /Hooks:\n {2}on_completed\[0\] agent claude: Docs for \{\{completed_specs\}\}\n {2}on_failed\[0\]/,
    );
    ok('loop', 'hook', 'remove', loopId, '--event', 'on_failed', '--index', '0');
    ok('loop', 'update', loopId, '--remove-on-completed');
    const expected = {
      on_failed: [{ command: 'echo {{node}}', timeout_minutes: 2 }],
      on_blocked: [{ platform: 'claude', model: 'haiku', prompt: 'Unblock {{blocker}}' }],
    };
    assert.deepEqual(hooksNow(), expected);
    assert.deepEqual(JSON.parse(ok('loop', 'get', loopId, '--json')).hooks, expected);
  });

  it('refuses each bad value with the field and the fix, exiting non-zero and changing nothing', () => {
    const before = hooksNow();
    const refusals: [string[], RegExp][] = [
      [['--event', 'on_merged', '--command', 'true'], /event: .*on_completed/],
      [['--event', 'on_failed', '--command', 'true', '--platform', 'claude'], /hook\.platform: a command hook takes no agent fields/],
      [['--event', 'on_failed'], /hook\.prompt: a hook needs command/],
      [['--event', 'on_failed', '--prompt', 'hi'], /hook\.platform: an agent hook needs the platform/],
      [
        ['--event', 'on_spec_completed', '--command', 'echo {{blocker}}'],
        /hook\.command: unknown placeholder \{\{blocker\}\}; a hook of on_spec_completed may use only/,
      ],
      [['--event', 'on_failed', '--command', 'true', '--timeout-minutes', 'soon'], /hook\.timeout_minutes/],
    ];
    for (const [args, message] of refusals) {
      const result = canopy('loop', 'hook', 'add', loopId, ...args);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stdout}`);
      assert.match(result.stderr, message);
    }
    const removed = canopy('loop', 'hook', 'remove', loopId, '--event', 'on_failed', '--index', '5', '--json');
    assert.equal(removed.status, 2);
    assert.match(JSON.parse(removed.stderr).error.issues[0].message, /no on_failed hook 5 \(it has indexes 0 to 0\)/);
    const updated = canopy('loop', 'update', loopId, '--on-completed', '{"platform": "claude", "prompt": "{{reason}}"}');
    assert.equal(updated.status, 2);
    assert.match(updated.stderr, /on_completed\.prompt: unknown placeholder \{\{reason\}\}/);
    assert.deepEqual(hooksNow(), before);
  });
});
