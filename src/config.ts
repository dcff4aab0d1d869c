// Where canopy keeps its state and how it reaches Temporal, from the environment.
import os from 'node:os';
import path from 'node:path';
import { hostIdProblem, HOST_ID_RULE } from './domain/common';
import { CanopyError } from './domain/errors';
import { payloadKeysOf, type PayloadKey } from './temporal/codec/payload-keys';

export interface CanopyConfig {
  home: string;
  databaseUrl: string | undefined;
  temporalAddress: string;
  /** True when TEMPORAL_ADDRESS was given: use that server, never start an embedded one. */
  externalTemporal: boolean;
  namespace: string;
  taskQueue: string;
  /**
   * This machine's name among canopy's workers (CANOPY_HOST_ID, default the hostname): loops made
   * here record it, and its workers also poll the host's own task queue for their nodes.
   */
  hostId: string;
  uiPort: number;
  /** Where the Temporal UI is served: the embedded server's, or CANOPY_TEMPORAL_UI_URL; null when unknown. */
  temporalUiUrl: string | null;
  mcpPort: number;
  /** Port `canopy web` serves the web app on (CANOPY_WEB_PORT), when not given one with --port. */
  webPort: string;
  /**
   * The origin a reverse proxy serves the web app at (CANOPY_PUBLIC_ORIGIN, or --public-origin), e.g.
   * https://canopy.example.com: requests naming it are accepted beside loopback ones, and sign-in links use it; null when none.
   */
  publicOrigin: string | null;
  /** Port of the worker's run-token MCP endpoint for its own agents; 0 picks a free one. */
  workerMcpPort: number;
  /** How long an activity may stay silent before Temporal assumes its worker died. */
  heartbeatTimeoutSeconds: number;
  /** host:port where workers serve Prometheus metrics (CANOPY_METRICS_ADDRESS); null serves none. */
  metricsAddress: string | null;
  /** Keys that encrypt payloads in Temporal's history (CANOPY_PAYLOAD_KEYS[_FILE]), the first one current; none encrypts nothing. */
  payloadKeys: PayloadKey[];
  /** host:port of the codec server `canopy up` and `canopy codec-server` serve when there are payload keys (CANOPY_CODEC_ADDRESS). */
  codecAddress: string;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): CanopyConfig {
  return {
    home: path.resolve(env.CANOPY_HOME || path.join(os.homedir(), '.canopy')),
    databaseUrl: env.CANOPY_DATABASE_URL || undefined,
    temporalAddress: env.TEMPORAL_ADDRESS || `127.0.0.1:${env.CANOPY_TEMPORAL_PORT || 7233}`,
    externalTemporal: Boolean(env.TEMPORAL_ADDRESS),
    namespace: env.TEMPORAL_NAMESPACE || 'default',
    taskQueue: env.CANOPY_TASK_QUEUE || 'canopy',
    hostId: hostIdOf(env),
    uiPort: Number(env.CANOPY_UI_PORT || 8233),
    temporalUiUrl:
      (env.CANOPY_TEMPORAL_UI_URL || (env.TEMPORAL_ADDRESS ? '' : `http://127.0.0.1:${env.CANOPY_UI_PORT || 8233}`)).replace(/\/+$/, '') ||
      null,
    mcpPort: Number(env.CANOPY_MCP_PORT || 7380),
    webPort: env.CANOPY_WEB_PORT || '7381',
    publicOrigin: publicOriginOf(env.CANOPY_PUBLIC_ORIGIN || null, 'CANOPY_PUBLIC_ORIGIN'),
    workerMcpPort: Number(env.CANOPY_WORKER_MCP_PORT || 0),
    heartbeatTimeoutSeconds: Number(env.CANOPY_HEARTBEAT_TIMEOUT_SECONDS || 30),
    metricsAddress: listenAddressOf(env.CANOPY_METRICS_ADDRESS || null, 'CANOPY_METRICS_ADDRESS', 'serve metrics on', '127.0.0.1:9464'),
    payloadKeys: payloadKeysOf(env),
    codecAddress: listenAddressOf(
      env.CANOPY_CODEC_ADDRESS || DEFAULT_CODEC_ADDRESS,
      'CANOPY_CODEC_ADDRESS',
      'serve the codec on',
      DEFAULT_CODEC_ADDRESS,
    ),
  };
}

/** The config with `--metrics <host:port>` over CANOPY_METRICS_ADDRESS, when given. */
export function withMetrics(config: CanopyConfig, option: string | undefined): CanopyConfig {
  return option === undefined
    ? config
    : { ...config, metricsAddress: listenAddressOf(option, '--metrics', 'serve metrics on', '127.0.0.1:9464') };
}

/** The config with `--public-origin <origin>` over CANOPY_PUBLIC_ORIGIN, when given. */
export function withPublicOrigin(config: CanopyConfig, option: string | undefined): CanopyConfig {
  return option === undefined ? config : { ...config, publicOrigin: publicOriginOf(option, '--public-origin') };
}

/**
 * An origin as a browser sends it (scheme, host, a port unless the scheme's own; null stays null); anything
 * else, a path included, is refused naming where it came from: the app is served at the root of its origin.
 */
export function publicOriginOf(value: string | null, given: string): string | null {
  if (value === null) return null;
  const url = URL.canParse(value) ? new URL(value) : null;
  const problem = !url
    ? 'is not a URL'
    : !['http:', 'https:'].includes(url.protocol)
      ? `has the scheme ${url.protocol.slice(0, -1)}`
      : url.username || url.password
        ? 'holds a user name or password'
        : url.pathname !== '/' || url.search || url.hash || /[?#]$/.test(value)
          ? 'has a path, query or fragment'
          : null;
  if (!problem) return url!.origin;
  throw new CanopyError(
    'invalid_input',
    `${given} '${value}' ${problem}: give the origin the browser opens, https:// or http:// with the host and at most a port, ` +
      'e.g. https://canopy.example.com (the app is served at the root of it).',
  );
}

/** Loopback, next to the embedded Temporal UI's 8233. */
const DEFAULT_CODEC_ADDRESS = '127.0.0.1:8234';

/** A host:port to listen on (null stays null); anything else is refused naming where it came from and what it is for. */
export function listenAddressOf<T extends string | null>(address: T, given: string, purpose: string, example: string): T {
  if (address === null || /^[^\s:]+:\d{1,5}$/.test(address)) return address;
  throw new CanopyError('invalid_input', `${given} '${address}' must be host:port to ${purpose}, e.g. ${example}.`);
}

/** CANOPY_HOST_ID when set (even empty, which is refused), else the hostname; refused unless it can name a task queue. */
function hostIdOf(env: NodeJS.ProcessEnv): string {
  const given = env.CANOPY_HOST_ID;
  const hostId = given ?? os.hostname();
  const problem = hostIdProblem(hostId);
  if (!problem) return hostId;
  throw new CanopyError(
    'invalid_input',
    given === undefined
      ? `This machine's hostname '${hostId}' ${problem}, so it cannot be canopy's host id; set CANOPY_HOST_ID to ${HOST_ID_RULE}, e.g. CANOPY_HOST_ID=build-1.`
      : `CANOPY_HOST_ID '${given}' ${problem}; set it to ${HOST_ID_RULE}, e.g. CANOPY_HOST_ID=build-1, or unset it to use this machine's hostname.`,
  );
}

/** How a worker names itself to Temporal: pollers in DescribeTaskQueue then say which host they are. */
export function workerIdentity(hostId: string, pid = process.pid): string {
  return `canopy@${hostId}:${pid}`;
}

/** The host id in a canopy worker's identity, or null for any other poller. */
export function hostOfWorkerIdentity(identity: string): string | null {
  const match = /^canopy@([A-Za-z0-9._-]+):\d+$/.exec(identity);
  return match ? match[1] : null;
}
