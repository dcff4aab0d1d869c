// The ports canopy hands to the servers it starts come from below the kernel's ephemeral range, where no
// outgoing connection can take one between the pick and the server's bind.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { it } from 'node:test';
import { freePort } from '../../src/temporal/free-port';

const RANGE_FILE = '/proc/sys/net/ipv4/ip_local_port_range';

it(
  'freePort picks a port a server can bind, below the ephemeral range',
  { skip: !existsSync(RANGE_FILE) && 'no ephemeral range to read' },
  async () => {
    const ephemeralStart = Number(readFileSync(RANGE_FILE, 'utf8').trim().split(/\s+/)[0]);
    const ports = await Promise.all(Array.from({ length: 20 }, () => freePort()));
    for (const port of ports) assert.ok(port >= 20_000 && port < ephemeralStart, `port ${port} outside 20000..${ephemeralStart - 1}`);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => server.once('error', reject).listen(ports[0], '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  },
);
