// A member node's config: the ensemble's settings, each overridden by the member's own.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { memberConfig } from '../../src/graph/stored-graph';

it('gives each member the ensemble’s prompt and limits unless it sets its own, and its own resume: false', () => {
  const ensemble = {
    name: 'drafters',
    prompt_template: 'Draft {{spec_content}}',
    timeout_minutes: 20,
    idle_timeout_minutes: 5,
    members: [
      { platform: 'claude' },
      { platform: 'codex', prompt_override: 'Draft tersely', timeout_minutes: 9, idle_timeout_minutes: 2, resume: false },
    ],
  };
  assert.deepEqual(memberConfig(ensemble, 0), {
    platform: 'claude',
    prompt_template: 'Draft {{spec_content}}',
    timeout_minutes: 20,
    idle_timeout_minutes: 5,
  });
  assert.deepEqual(memberConfig(ensemble, 1), {
    platform: 'codex',
    prompt_template: 'Draft tersely',
    timeout_minutes: 9,
    idle_timeout_minutes: 2,
    resume: false,
  });
});
