// The five blueprints every canopy store starts with: the proven implement, gate, review-and-commit,
// verify-commit and recover pattern.
import type { BlueprintInput } from '../domain';

const MIMO = { platform: 'opencode', model: 'mimo-v2.5-free' };

export const BUILTIN_BLUEPRINTS: readonly BlueprintInput[] = [
  {
    name: 'implementer-claude',
    kind: 'agent',
    config: {
      platform: 'claude',
      prompt_template: 'Implement this spec in {{workdir}}:\n\n{{spec_content}}\n\nPrevious feedback:\n{{previous_feedback}}',
      timeout_minutes: 30,
    },
  },
  {
    name: 'cargo-gates',
    kind: 'check',
    config: { command: 'cargo fmt --check && cargo clippy -- -D warnings && cargo test' },
  },
  {
    name: 'reviewer-committer-mimo',
    kind: 'agent',
    config: {
      ...MIMO,
      commit_rights: true,
      prompt_template:
        'Review the uncommitted changes in {{workdir}} (see `git diff`) against this spec:\n\n{{spec_content}}\n\n' +
        'If they implement it correctly and completely, commit them with a message that says what was done. ' +
        'If not, do not commit: list what must change.',
    },
  },
  {
    name: 'commit-check',
    kind: 'check',
    config: {
      command:
        'test -z "$(git status --porcelain)" && test -n "{{spec_committed_head}}" && test "$(git rev-parse HEAD)" = "{{spec_committed_head}}"',
    },
  },
  {
    name: 'resilience-mimo',
    kind: 'agent',
    config: {
      ...MIMO,
      prompt_template:
        'A step working on this spec in {{workdir}} failed:\n\n{{previous_feedback}}\n\n' +
        'Diagnose the cause of the failure and fix it, leaving your changes uncommitted.\n\nThe spec:\n{{spec_content}}',
    },
  },
];
