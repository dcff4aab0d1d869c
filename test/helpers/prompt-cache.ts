// The providers' prompt caches, as the stand-in model keeps one: the leading part of a request that an earlier
// request sent too is read from the cache, and reported apart from the rest of the input in each vendor's own
// field. As the providers document it, the cached part is a whole number of blocks (tools, system text, messages
// in the order the model reads them) and at least 1,024 tokens long; OpenAI counts it in steps of 128 tokens;
// Anthropic caches only up to the blocks a request marks with `cache_control`, and says what it wrote.
import { createHash } from 'node:crypto';
import { tokensOf } from './token-count';

type Json = Record<string, any>;
export type Vendor = 'anthropic' | 'responses' | 'chat' | 'gemini';

export interface CachedInput {
  /** The input tokens the request's leading blocks came to that were read from the cache. */
  read: number;
  /** Anthropic's: the tokens this request wrote to the cache, up to its last `cache_control` mark. */
  written: number;
}

const MIN_CACHED_TOKENS = 1_024;
const OPENAI_CACHE_STEP = 128;

export class PromptCache {
  private readonly prefixes = new Set<string>();

  /** What of `body`'s input the cache held, and what it holds from now on. */
  read(vendor: Vendor, body: Json): CachedInput {
    const prefixes = leadingPrefixes(vendor, body);
    const cacheable = (prefix: Prefix) => prefix.tokens >= MIN_CACHED_TOKENS;
    const hit = prefixes.filter((prefix) => cacheable(prefix) && this.prefixes.has(prefix.hash)).at(-1);
    const step = vendor === 'responses' || vendor === 'chat' ? OPENAI_CACHE_STEP : 1;
    const read = hit ? hit.tokens - (hit.tokens % step) : 0;
    const stored = prefixes.filter((prefix) => cacheable(prefix) && (vendor !== 'anthropic' || prefix.marked));
    for (const prefix of stored) this.prefixes.add(prefix.hash);
    const written = vendor === 'anthropic' ? Math.max(0, (stored.at(-1)?.tokens ?? 0) - read) : 0;
    return { read, written };
  }
}

interface Prefix {
  hash: string;
  tokens: number;
  /** Whether the block it ends with carries Anthropic's `cache_control` mark. */
  marked: boolean;
}

/** Every leading run of the request's blocks: its hash, its size, and whether its last block is marked. */
function leadingPrefixes(vendor: Vendor, body: Json): Prefix[] {
  let hash = '';
  let chars = 0;
  return blocksOf(vendor, body).map(({ cache_control: mark, ...block }) => {
    // Where a request marks the cache is not what it sent: a later request marks other blocks.
    const text = JSON.stringify(block);
    hash = createHash('sha256').update(hash).update(text).digest('hex');
    chars += text.length;
    return { hash, tokens: tokensOf(chars), marked: mark !== undefined };
  });
}

/** The request's blocks in the order the model reads them. */
function blocksOf(vendor: Vendor, body: Json): Json[] {
  const list = (value: unknown): Json[] => (Array.isArray(value) ? value : value === undefined || value === null ? [] : [value]);
  if (vendor === 'anthropic') {
    const system = typeof body.system === 'string' ? [{ type: 'text', text: body.system }] : list(body.system);
    const messages = list(body.messages).flatMap((message) =>
      typeof message.content === 'string'
        ? [{ role: message.role, text: message.content }]
        : list(message.content).map((part) => ({ role: message.role, ...part })),
    );
    return [...list(body.tools), ...system, ...messages];
  }
  if (vendor === 'responses') return [...list(body.instructions), ...list(body.tools), ...list(body.input)];
  if (vendor === 'chat') return [...list(body.tools), ...list(body.messages)];
  return [...list(body.systemInstruction), ...list(body.tools), ...list(body.contents)];
}
