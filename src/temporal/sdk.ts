// The Temporal client SDK, loaded on first use: commands that only read the store never pay the
// ~100 ms it takes to load, nor wait for a server.
/* eslint-disable @typescript-eslint/no-require-imports */

export const temporalClientSdk = (): typeof import('@temporalio/client') =>
  require('@temporalio/client') as typeof import('@temporalio/client');

export const temporalProto = (): typeof import('@temporalio/proto') => require('@temporalio/proto') as typeof import('@temporalio/proto');
