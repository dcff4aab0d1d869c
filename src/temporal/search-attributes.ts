// The search attributes every loop-run workflow carries, so the Temporal UI can find a loop's runs.
import type { Connection } from '@temporalio/client';
import type { SearchAttributeKey } from '@temporalio/common/lib/search-attributes';
import { LOOP_STATUS_ATTRIBUTE } from '../contract';
import { hasCause } from '../domain/errors';
import { temporalProto } from './sdk';

// What `defineSearchAttributeKey` of @temporalio/common returns, written out so that a client reading
// loops does not load the SDK.
const keyword = (name: string): SearchAttributeKey<'KEYWORD'> => ({ name, type: 'KEYWORD' });

export const LOOP_ID_KEY = keyword('CanopyLoopId');
export const LOOP_NAME_KEY = keyword('CanopyLoopName');
export const WORKDIR_KEY = keyword('CanopyWorkdir');
/** The loop's status as its run moves (running, paused, blocked, completed, failed), so the UI's list can be filtered by it. */
export const LOOP_STATUS_KEY = keyword(LOOP_STATUS_ATTRIBUTE.name);

/** The canopy version that started the run, so a worker can tell the open runs its workflow code no longer replays. */
export const VERSION_KEY = keyword('CanopyVersion');

export const CANOPY_SEARCH_ATTRIBUTES = [LOOP_ID_KEY, LOOP_NAME_KEY, WORKDIR_KEY, LOOP_STATUS_KEY, VERSION_KEY];

/** `--search-attribute` flags for `temporal server start-dev`. */
export function devServerSearchAttributeFlags(): string[] {
  return CANOPY_SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=Keyword`]);
}

/** How long a namespace takes at most to map attributes just added, with room for a busy server (its refresh is every 2 s). */
const MAPPING_TIMEOUT_MS = 60_000;
const GRPC_INVALID_ARGUMENT = 3;

type Services = Pick<Connection, 'operatorService' | 'workflowService'>;

/**
 * Registers the attributes on a server canopy did not start (an external cluster or a reused dev
 * server), and waits until its frontend maps them: it reads a namespace's attributes from a cache
 * refreshed every few seconds, and refuses a workflow started with attributes it does not map yet.
 */
export async function ensureSearchAttributes(connection: Services, namespace: string): Promise<void> {
  const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
  const missing = CANOPY_SEARCH_ATTRIBUTES.filter((key) => !(key.name in (customAttributes ?? {})));
  if (missing.length === 0) return;
  const { temporal } = temporalProto();
  await connection.operatorService.addSearchAttributes({
    namespace,
    searchAttributes: Object.fromEntries(
      missing.map((key) => [key.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD]),
    ),
  });
  await waitUntilMapped(connection, namespace);
}

/** Whether Temporal refused a start because the namespace does not map one of the attributes it carries. */
export function isUnmappedAttributeRefusal(error: unknown): boolean {
  return hasCause(error, (cause) => cause.code === GRPC_INVALID_ARGUMENT && /no mapping defined for search attribute/.test(cause.message));
}

/** A visibility query naming every attribute is refused, as a start with them is, until the frontend maps them all. */
async function waitUntilMapped(connection: Services, namespace: string): Promise<void> {
  const query = CANOPY_SEARCH_ATTRIBUTES.map((key) => `${key.name} = ''`).join(' AND ');
  const deadline = Date.now() + MAPPING_TIMEOUT_MS;
  for (;;) {
    try {
      await connection.workflowService.listWorkflowExecutions({ namespace, query, pageSize: 1 });
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== GRPC_INVALID_ARGUMENT || Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
