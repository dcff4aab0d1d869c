// Opening `canopy tui` over the store: the Ink app (ESM) loads while the store opens, then gets the actions it may take.
import { withContext } from '../../client/context';
import { loadTuiApp } from '../load-esm';
import { storeActions } from './store-actions';

export async function openTui(cwd: string): Promise<void> {
  const app = loadTuiApp();
  await withContext(async (ctx) => (await app).runTui(storeActions(ctx, cwd)));
}
