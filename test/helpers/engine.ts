// An engine under test: a temp canopy home with the fake agent platform, a store, and a worker on
// its own task queue against the run's shared dev server (started by test/run-all.ts).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before } from 'node:test';
import { createActivities } from '../../src/activities';
import type { LoopActivities } from '../../src/contract';
import { loadConfig, type CanopyConfig } from '../../src/config';
import { openContext, type ClientContext } from '../../src/client/context';
import { activityDeps, startAgentEndpoint } from '../../src/daemon';
import { connectWorker, createWorkers, type WorkerSetup } from '../../src/worker';
import { PROJECT_ROOT } from '../../src/project';
import { payloadKeysText } from './payload-keys';

export const FAKE_AGENT = path.join(PROJECT_ROOT, 'examples', 'fake-agent.js');
export { CANOPY_BIN } from '../../src/project';

export function testTemporalAddress(): string {
  const address = process.env.CANOPY_TEST_TEMPORAL_ADDRESS;
  if (!address) throw new Error('CANOPY_TEST_TEMPORAL_ADDRESS is not set: run the tests with `npm test`, which starts the dev server.');
  return address;
}

/** A canopy home whose config.json registers the fake agent as platform `fake`. */
export function tempHome(): string {
  const home = mkdtempSync(path.join(os.tmpdir(), 'canopy-home-'));
  const platforms = { fake: { argv: [process.execPath, FAKE_AGENT, '{{prompt}}'] } };
  writeFileSync(path.join(home, 'config.json'), JSON.stringify({ platforms }));
  return home;
}

export function testConfig(home: string, overrides: Record<string, string> = {}): CanopyConfig {
  return loadConfig({
    CANOPY_HOME: home,
    TEMPORAL_ADDRESS: overrides.TEMPORAL_ADDRESS ?? testTemporalAddress(),
    CANOPY_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
    CANOPY_HEARTBEAT_TIMEOUT_SECONDS: '3',
    ...overrides,
  });
}

/** Environment for a child `canopy` process that shares this harness's home, server and task queue. */
export function childEnv(config: CanopyConfig): NodeJS.ProcessEnv {
  return {
    ...process.env,
    ...(config.databaseUrl ? { CANOPY_DATABASE_URL: config.databaseUrl } : {}),
    CANOPY_HOME: config.home,
    TEMPORAL_ADDRESS: config.temporalAddress,
    CANOPY_TASK_QUEUE: config.taskQueue,
    CANOPY_HOST_ID: config.hostId,
    CANOPY_HEARTBEAT_TIMEOUT_SECONDS: String(config.heartbeatTimeoutSeconds),
    ...(config.payloadKeys.length > 0 ? { CANOPY_PAYLOAD_KEYS: payloadKeysText(config.payloadKeys) } : {}),
  };
}

export interface EngineHarness {
  config: CanopyConfig;
  ctx: ClientContext;
  /** Runs `work` while an in-process worker polls the harness's task queue and its host's; `workflows` runs other workflow code. */
  withWorker<T>(work: () => Promise<T>, workflows?: WorkerSetup['workflows']): Promise<T>;
  close(): Promise<void>;
}

/** `env` overrides settings, e.g. CANOPY_DATABASE_URL to run on PostgreSQL; `activities` replaces some, e.g. to inject failures. */
export async function engineHarness(env: Record<string, string> = {}, replaced: Partial<LoopActivities> = {}): Promise<EngineHarness> {
  const config = testConfig(tempHome(), env);
  const ctx = await openContext(config);
  const connection = await connectWorker(config.temporalAddress);
  const agentEndpoint = await startAgentEndpoint(ctx);
  const deps = activityDeps(ctx, agentEndpoint.url);
  const activities = { ...createActivities(deps), ...replaced };
  return {
    config,
    ctx,
    async withWorker(work, workflows) {
      // A test's workers are short-lived: the daemons of the CLI and cluster tests run the production shape.
      const workers = await createWorkers({ connection, config, activities, workflows, workflowsOnCallingThread: true });
      return workers.runUntil(work);
    },
    async close() {
      await deps.workdirScans.drained();
      await agentEndpoint.close();
      await connection.close();
      await ctx.close();
    },
  };
}

/** A harness for the enclosing suite, opened before its tests and closed after them. */
/** An engine harness for the suite; `env` overrides the test configuration's settings. */
export function useEngineHarness(env: Record<string, string> = {}): EngineHarness {
  let harness: EngineHarness | undefined;
  before(async () => {
    harness = await engineHarness(env);
  });
  after(async () => {
    await harness?.close();
  });
  return openedLater(() => harness);
}

/** A harness that a suite's `before` opens: each use reaches the one open then, and fails outside a test. */
export function openedLater(current: () => EngineHarness | undefined): EngineHarness {
  const opened = () => current() ?? assert.fail('the engine harness is used outside a test');
  return {
    get config() {
      return opened().config;
    },
    get ctx() {
      return opened().ctx;
    },
    withWorker: (work, workflows) => opened().withWorker(work, workflows),
    close: () => opened().close(),
  };
}

/** Runs `work` with `changes` merged into the home's config.json (read by each worker as it starts), then puts the file back. */
export async function withConfigChanges<T>(home: string, changes: Record<string, unknown>, work: () => Promise<T>): Promise<T> {
  const file = path.join(home, 'config.json');
  const original = readFileSync(file, 'utf8');
  writeFileSync(file, JSON.stringify({ ...JSON.parse(original), ...changes }));
  try {
    return await work();
  } finally {
    writeFileSync(file, original);
  }
}
