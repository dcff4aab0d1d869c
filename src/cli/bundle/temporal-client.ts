// The Temporal client SDK as the bundled CLI loads it: from a bundle of its own, with its compiled
// code, rather than as the 270-odd files it is in node_modules. A worker in the same process keeps
// the SDK it installed; the two copies meet only through the SDK's own interfaces, whose error classes
// are told apart by symbols rather than by identity.
import { runBundle } from './load';
import { TEMPORAL_CLIENT_BUNDLE_PATH, TEMPORAL_CLIENT_CODE_CACHE_PATH } from './paths';

export interface TemporalClientBundle {
  client: typeof import('@temporalio/client');
  proto: typeof import('@temporalio/proto');
}

let loaded: TemporalClientBundle | undefined;

export const temporalClientBundle = (): TemporalClientBundle =>
  (loaded ??= runBundle<TemporalClientBundle>(TEMPORAL_CLIENT_BUNDLE_PATH, TEMPORAL_CLIENT_CODE_CACHE_PATH));
