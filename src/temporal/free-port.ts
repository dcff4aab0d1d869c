// TCP ports: a free one on loopback, for servers started by the demo, the tests and the cluster, and
// whether a port accepts connections.
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** Where the ports handed to servers start; below it lie the well-known and registered services most used. */
const SERVER_PORTS_FROM = 20_000;

/**
 * A free port for a server started next, picked below the kernel's ephemeral range: a port found with
 * `listen(0)` comes from that range, where an outgoing connection of any process can take it before the
 * server binds it (a busy machine running many servers side by side did).
 */
export function freePort(): Promise<number> {
  const below = ephemeralRangeStart() - 1;
  return below > SERVER_PORTS_FROM ? freePortBetween(SERVER_PORTS_FROM, below) : listenOnce(0);
}

/** Linux says where its ephemeral range starts; 32768 is Linux's default and below every other system's. */
function ephemeralRangeStart(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32_768;
  } catch {
    return 32_768;
  }
}

/** A free port from `min` to `max`, for a server that cannot take just any port. */
export async function freePortBetween(min: number, max: number): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const candidate = min + Math.floor(Math.random() * (max - min + 1));
    try {
      return await listenOnce(candidate);
    } catch {
      // Taken: try another.
    }
  }
  throw new Error(`No free port from ${min} to ${max} on 127.0.0.1.`);
}

/** Whether `host` accepts a TCP connection on `port` within `timeoutMs`; the kernel accepts for a listening server however busy it is. */
export function acceptsConnections(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: timeoutMs });
    const settle = (accepted: boolean) => {
      socket.destroy();
      resolve(accepted);
    };
    socket.once('connect', () => settle(true));
    socket.once('error', () => settle(false));
    socket.once('timeout', () => settle(false));
  });
}

/** Binds `port` (0: any) on loopback and lets go of it again, resolving with the port bound. */
function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const bound = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(bound));
    });
  });
}
