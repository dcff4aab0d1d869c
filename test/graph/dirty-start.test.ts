// When a spec may start on the workdir as it is.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dirtyStartRefusal, type SpecStartFacts } from '../../src/graph/dirty-start';

const facts = (changes: Partial<SpecStartFacts>): SpecStartFacts => ({
  loopId: 'loop_1',
  workdir: '/repo',
  specName: 'next',
  dirty: ['wip.txt'],
  left: { specName: 'broken', paths: ['wip.txt'] },
  allowDirtyStart: false,
  ...changes,
});

describe('dirtyStartRefusal', () => {
  it('refuses only the paths the failed run left that are still uncommitted', () => {
    const refusal = dirtyStartRefusal(
      facts({ dirty: ['mine.md', 'wip.txt'], left: { specName: 'broken', paths: ['gone.txt', 'wip.txt'] } }),
    );
    assert.match(
      refusal ?? '',
      /^spec 'next' does not start: the workdir \/repo still has the uncommitted changes the failed run of spec 'broken' left \(wip\.txt\);/,
    );
  });

  it('lets the spec start when nothing the failed run left is dirty, when no failed run left anything, or when allowed', () => {
    assert.equal(dirtyStartRefusal(facts({ dirty: ['mine.md'] })), null);
    assert.equal(dirtyStartRefusal(facts({ left: null })), null);
    assert.equal(dirtyStartRefusal(facts({ allowDirtyStart: true })), null);
  });

  it('names ten paths and counts the rest, and quotes a workdir the shell would split', () => {
    const paths = Array.from({ length: 12 }, (_, index) => `f${index}.txt`);
    const refusal = dirtyStartRefusal(facts({ workdir: "/tmp/my repo's", dirty: paths, left: { specName: 'broken', paths } })) ?? '';
    assert.match(refusal, /\(f0\.txt, f1\.txt, .*, f9\.txt and 2 more\)/);
    assert.match(refusal, /`git -C '\/tmp\/my repo'\\''s' stash --include-untracked`/);
  });
});
