// Opening `canopy tui` over the store: the Ink app (ESM) loads while the store opens, then gets the actions it may take.
import { withContext } from '../../client/context';
import { storeActions } from './store-actions';

export async function openTui(cwd: string): Promise<void> {
  const app = import('./app.mjs');
  await withContext(async (ctx) => (await app).runTui(storeActions(ctx, cwd)));
}
