// The Temporal client SDK, loaded on first use: commands that only read the store never pay the
// time it takes to load, nor wait for a server. The bundled CLI takes both from its own bundle of the
// SDK (src/cli/bundle/temporal-client.ts); everything else from node_modules.
/* eslint-disable @typescript-eslint/no-require-imports */

export const temporalClientSdk = (): typeof import('@temporalio/client') =>
  require('@temporalio/client') as typeof import('@temporalio/client');

export const temporalProto = (): typeof import('@temporalio/proto') => require('@temporalio/proto') as typeof import('@temporalio/proto');
