// `canopy codec-server`: the codec endpoints the Temporal Web UI and `temporal` CLI use to show
// payloads canopy encrypted, for a cluster (`canopy up` serves them itself).
import type { Command } from 'commander';
import { action } from '../output';

export function registerCodecServer(program: Command): void {
  program
    .command('codec-server')
    .description("Serve the payload codec (POST /encode, /decode) for the Temporal Web UI and CLI, with this home's token")
    .option('--address <host:port>', 'where to listen (default: CANOPY_CODEC_ADDRESS, else 127.0.0.1:8234)')
    .option('--ui-origin <origin...>', "browser origins allowed to call it (default: the Temporal UI's, CANOPY_TEMPORAL_UI_URL)")
    .action(
      action(async (options: { address?: string; uiOrigin?: string[] }) => {
        const { listenAddressOf, loadConfig } = require('../../config') as typeof import('../../config');
        const { serveCanopyCodec } =
          require('../../temporal/codec/canopy-codec-server') as typeof import('../../temporal/codec/canopy-codec-server');
        const { codecUsage } = require('../text/codec-usage') as typeof import('../text/codec-usage');
        const { untilStopped, waitForStop } = require('../stop-signal') as typeof import('../stop-signal');
        const loaded = loadConfig();
        const address = options.address && listenAddressOf(options.address, '--address', 'serve the codec on', '127.0.0.1:8234');
        const config = address ? { ...loaded, codecAddress: address } : loaded;
        await untilStopped(async (stop) => {
          const server = await serveCanopyCodec(config, options.uiOrigin);
          for (const line of codecUsage(config, server)) console.log(line);
          console.log('Press Ctrl-C to stop.');
          await waitForStop(stop, new Promise(() => undefined));
          await server.close();
        });
      }),
    );
}
