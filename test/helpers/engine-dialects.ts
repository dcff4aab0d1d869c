// An engine under test on each store dialect: a suite per dialect (skipped, saying why, where the
// dialect is unavailable), each with its own scratch store and engine harness for all its tests.
import { after, before, describe, it } from 'node:test';
import { engineHarness, openedLater, type EngineHarness } from './engine';
import { postgres, sqlite, type ScratchStore } from './store-dialects';

export function describeEngineOnEachDialect(title: string, defineTests: (h: EngineHarness) => void): void {
  // PostgreSQL first: its suite asks whether the server answers, which a machine still busy with the
  // other suite's processes (a fleet of them) can delay past the deadline.
  for (const dialect of [postgres, sqlite]) {
    describe(`${title} [${dialect.name}]`, async () => {
      const unavailable = await dialect.unavailable();
      if (unavailable) {
        it(`runs on ${dialect.name}`, { skip: unavailable }, () => {});
        return;
      }
      let scratch: ScratchStore | undefined;
      let harness: EngineHarness | undefined;
      before(async () => {
        scratch = await dialect.scratchStore();
        harness = await engineHarness(scratch.options.url ? { CANOPY_DATABASE_URL: scratch.options.url } : {});
      });
      after(async () => {
        await harness?.close();
        await scratch?.dispose();
      });
      defineTests(openedLater(() => harness));
    });
  }
}
