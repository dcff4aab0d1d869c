// A stand-in model API on loopback, so the real agent CLIs run end to end without a model: Anthropic
// Messages, OpenAI Responses and Chat Completions, and Gemini generateContent, streaming as the vendors do.
// Each test scripts what "the model" does when the CLI offers it tools in answer to a new user turn: first read a
// file the task names, with the CLI's own tool, unless the conversation already holds it; then call a
// tool (matched by the end of its name, since every CLI prefixes MCP tools its own way; in strict mode only when
// the conversation names it), answer a usage limit, be overloaded, or hang. Once it called the tool for the
// newest prompt it answers the final text, so a resumed session, whose request carries the earlier turns too,
// is answered for its newest one. Requests without tools (titles, probes) get a short text
// answer. Usage is reported as the APIs do, the input counted from what the request sent, the part an earlier
// request sent too read from a prompt cache as the vendors keep one. Every request is logged, with the usage it
// was answered with, for the tests and for finding out what a CLI sends.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { PromptCache, type CachedInput, type Vendor } from './prompt-cache';
import { tokensOf } from './token-count';

export type ModelAction =
  | { kind: 'tool'; tool: string; args: Record<string, unknown> }
  | { kind: 'text' }
  | { kind: 'quota'; resetAt: Date }
  | { kind: 'hang' }
  | { kind: 'overloaded' };

export interface ModelScript {
  action: ModelAction;
  /** The answer once the tool has run, or at once for `text`. */
  final: string;
  /**
   * Call the tool only when the conversation (system text, instructions, messages; not the tool list) names
   * it, as a model that follows its instructions would.
   */
  strict?: boolean;
  /** The tool call is answered only once this settles, so a test can act while the CLI waits for its model. */
  heldUntil?: Promise<void>;
  /**
   * A file the task needs, read with a tool of the CLI's before the model acts, unless the conversation already holds
   * `holds` (a mark in its content), as a model reads only what it was not shown yet.
   */
  reads?: { tool: string; args: Record<string, unknown>; holds: string };
}

export interface LoggedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
  /** The input tokens the answer reported (null for a request no model answered). */
  inputTokens: number | null;
  /** Of those, the tokens read from the prompt cache (null until a model answered). */
  cachedInputTokens: number | null;
  /** The tool the answer called, as the CLI offered it; null for an answer in words, or none yet. */
  calledTool: string | null;
}

export interface ModelApi {
  url: string;
  requests: LoggedRequest[];
  script(next: ModelScript): void;
  /** Requests held open by a `hang`, right now. */
  hanging(): number;
  /** Tool calls waiting for their script's `heldUntil`, right now. */
  held(): number;
  close(): Promise<void>;
}

/** Output tokens every answer reports. */
export const OUTPUT_TOKENS = 56;

/** The input tokens of a request: what it sent the model (system text, tools, the conversation), counted. */
export function inputTokensOf(body: unknown): number {
  return tokensOf(JSON.stringify(body ?? '').length);
}

/** A tool call's `call` numbers it among the stand-in's calls: the APIs give every call an id of its own. */
type Turn = { kind: 'text'; text: string } | { kind: 'tool'; name: string; args: Record<string, unknown>; call: number };
type Json = Record<string, any>;
/** `input` counts every input token, the cached ones too. */
type Usage = { input: number; output: number; cached: CachedInput };

export async function startModelApi(): Promise<ModelApi> {
  let current: ModelScript = { action: { kind: 'text' }, final: 'done' };
  const requests: LoggedRequest[] = [];
  const cache = new PromptCache();
  const hanging = new Set<http.ServerResponse>();
  let held = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        // kept as text
      }
      const url = new URL(request.url ?? '/', 'http://localhost');
      const inputTokens = vendorOf(url.pathname) ? inputTokensOf(body) : null;
      const logged: LoggedRequest = {
        method: request.method ?? '',
        path: url.pathname + url.search,
        headers: request.headers,
        body,
        inputTokens,
        cachedInputTokens: null,
        calledTool: null,
      };
      requests.push(logged);
      const script = current;
      const { heldUntil } = script;
      const reply = () => answer({ url, body: body ?? {}, response, logged }, script, { hanging, cache });
      if (heldUntil && callsTool(url, body ?? {}, script)) {
        held++;
        void heldUntil.then(() => {
          held--;
          reply();
        });
      } else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    script: (next) => void (current = next),
    hanging: () => hanging.size,
    held: () => held,
    close: () =>
      new Promise((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function vendorOf(path: string): Vendor | null {
  if (path.endsWith('/messages')) return 'anthropic';
  if (path.endsWith('/responses')) return 'responses';
  if (path.endsWith('/chat/completions')) return 'chat';
  if (/:(stream)?generateContent$/i.test(path)) return 'gemini';
  return null;
}

/** Whether the answer to this request is the script's tool call. */
function callsTool(url: URL, body: Json, script: ModelScript): boolean {
  const vendor = vendorOf(url.pathname);
  return (
    vendor !== null &&
    script.action.kind === 'tool' &&
    toolNames(vendor, body).length > 0 &&
    !toolCalledForNewestPrompt(vendor, body, script)
  );
}

/** Tool calls answered so far, by every stand-in of the process: each call's id is unique, as the APIs' are. */
let toolCalls = 0;

interface Exchange {
  url: URL;
  body: Json;
  response: http.ServerResponse;
  logged: LoggedRequest;
}

/** What the stand-in keeps across requests: the answers it holds open, and its prompt cache. */
interface Held {
  hanging: Set<http.ServerResponse>;
  cache: PromptCache;
}

function answer(exchange: Exchange, script: ModelScript, { hanging, cache }: Held): void {
  const { url, body, response } = exchange;
  const vendor = vendorOf(url.pathname);
  if (!vendor) {
    // Model listings and other side calls: an empty but well-formed answer.
    const empty = url.pathname.endsWith('/models') ? { data: [], models: [], object: 'list' } : {};
    return void response
      .writeHead(url.pathname.endsWith('/models') ? 200 : 404, { 'Content-Type': 'application/json' })
      .end(JSON.stringify(empty));
  }
  const tools = toolNames(vendor, body);
  const offered = tools.length > 0;
  const answered = toolCalledForNewestPrompt(vendor, body, script);
  const { action, reads } = script;
  if (offered && !answered && reads && !conversationNames(body, reads.holds))
    return reply(exchange, vendor, toolTurn(tools, reads.tool, reads.args), cache);
  if (offered && !answered && action.kind === 'hang') {
    hanging.add(response);
    response.on('close', () => hanging.delete(response));
    return void response.writeHead(200, { 'Content-Type': 'text/event-stream' }).flushHeaders();
  }
  if (offered && !answered && action.kind === 'quota') return quota(vendor, action.resetAt, response);
  if (offered && !answered && action.kind === 'overloaded') return overloaded(vendor, response);
  let turn: Turn = { kind: 'text', text: offered ? script.final : 'ok' };
  if (offered && !answered && action.kind === 'tool' && (!script.strict || conversationNames(body, action.tool)))
    turn = toolTurn(tools, action.tool, action.args);
  reply(exchange, vendor, turn, cache);
}

/** A call of the offered tool whose name ends in `tool`, or words saying none does. */
function toolTurn(tools: string[], tool: string, args: Record<string, unknown>): Turn {
  // The exact name first: `read` also ends `todoread`.
  const name = tools.find((offered) => offered === tool) ?? tools.find((offered) => offered.endsWith(tool));
  return name ? { kind: 'tool', name, args, call: ++toolCalls } : { kind: 'text', text: `no tool ending in ${tool}: ${tools.join(' ')}` };
}

/** Answers with `turn` and the usage the request came to, streamed when it asked for a stream. */
function reply({ url, body, response, logged }: Exchange, vendor: Vendor, turn: Turn, cache: PromptCache): void {
  const stream = vendor === 'gemini' ? url.pathname.includes('streamGenerateContent') : body.stream === true;
  const model = String(body.model ?? url.pathname.match(/models\/([^:]+)/)?.[1] ?? 'stand-in');
  const cached = cache.read(vendor, body);
  logged.cachedInputTokens = cached.read;
  logged.calledTool = turn.kind === 'tool' ? turn.name : null;
  const usage = { input: inputTokensOf(body), output: OUTPUT_TOKENS, cached };
  if (!stream) return void json(response, 200, whole(vendor, turn, model, usage));
  response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  for (const [event, data] of events(vendor, turn, model, usage)) {
    response.write(`${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`);
  }
  if (vendor === 'chat') response.write('data: [DONE]\n\n');
  response.end();
}

function toolNames(vendor: Vendor, body: Json): string[] {
  if (vendor === 'gemini') {
    return ((body.tools ?? []) as Json[]).flatMap((tool) => ((tool.functionDeclarations ?? []) as Json[]).map((f) => String(f.name)));
  }
  // codex groups an MCP server's tools in a namespace; its calls name the namespace beside the tool.
  return ((body.tools ?? []) as Json[])
    .flatMap((tool) =>
      tool.type === 'namespace'
        ? ((tool.tools ?? []) as Json[]).map((t) => `${tool.name}/${t.name}`)
        : [String(tool.name ?? tool.function?.name ?? '')],
    )
    .filter(Boolean);
}

function conversationNames(body: Json, tool: string): boolean {
  return JSON.stringify({ ...body, tools: undefined }).includes(tool);
}

/**
 * Whether the script's tool was called for the conversation's newest prompt (and the CLI, asking again, has its
 * result): the model calls it once for each prompt a person gave, so it was when the conversation holds as many calls
 * of it as prompts. Counted, not placed: a CLI may send a turn's results in one message with the next prompt (claude
 * merges a resumed session's messages by role), or a result twice (gemini's resumed history).
 */
function toolCalledForNewestPrompt(vendor: Vendor, body: Json, script: ModelScript): boolean {
  const turns = conversation(vendor, body);
  // A prompt is a person's turn the model answered, or the last one; user messages a CLI sends before it are context.
  const prompts = turns.filter((turn, index) => userTurnText(vendor, turn) !== null && turns[index + 1]?.role !== 'user').length;
  const tool = script.action.kind === 'tool' ? script.action.tool : null;
  const calls = turns.reduce((count, turn) => count + toolCallsIn(vendor, turn, tool), 0);
  return calls >= prompts;
}

function conversation(vendor: Vendor, body: Json): Json[] {
  const turns: unknown = vendor === 'gemini' ? body.contents : vendor === 'responses' ? body.input : body.messages;
  return Array.isArray(turns) ? (turns as Json[]) : [];
}

/** The calls of a tool whose name ends in `tool` (of any tool when null) the turn makes. */
function toolCallsIn(vendor: Vendor, turn: Json, tool: string | null): number {
  const parts = (content: unknown) => (Array.isArray(content) ? (content as Json[]) : []);
  const named = (name: unknown) => tool === null || String(name).endsWith(tool);
  if (vendor === 'anthropic') return parts(turn.content).filter((part) => part.type === 'tool_use' && named(part.name)).length;
  if (vendor === 'responses') return turn.type === 'function_call' && named(turn.name) ? 1 : 0;
  if (vendor === 'chat') return parts(turn.tool_calls).filter((call) => named(call.function?.name)).length;
  return parts(turn.parts).filter((part) => part.functionCall !== undefined && named(part.functionCall.name)).length;
}

/**
 * The text of a person's turn: a user message's text, not a tool's result nor the reminders a CLI adds (claude
 * sends a resumed session's new prompt in one message with the last tool result); null for any other turn.
 */
function userTurnText(vendor: Vendor, turn: Json): string | null {
  if (turn.role !== 'user') return null;
  const content: unknown = vendor === 'gemini' ? turn.parts : turn.content;
  const parts = typeof content === 'string' ? [{ text: content }] : Array.isArray(content) ? (content as Json[]) : [];
  const texts = parts
    .filter((part) => part.type !== 'tool_result' && typeof part.text === 'string' && !part.text.startsWith(CLI_REMINDER))
    .map((part) => part.text as string);
  return texts.length ? texts.join('\n') : null;
}

/** How claude opens the text it adds to a user message of its own accord. */
const CLI_REMINDER = '<system-reminder>';

/** The text of the newest user turn a logged request sent, or null when it sent none. */
export function newestUserTurn(request: LoggedRequest): string | null {
  const vendor = vendorOf(request.path.split('?')[0]);
  if (!vendor || request.body === null || typeof request.body !== 'object') return null;
  const texts = conversation(vendor, request.body as Json).map((turn) => userTurnText(vendor, turn));
  return texts.filter((text) => text !== null).at(-1) ?? null;
}

/** Whether a logged request is one the model answers (not a listing or other side call). */
export function isModelRequest(request: LoggedRequest): boolean {
  return request.inputTokens !== null;
}

function json(response: http.ServerResponse, status: number, body: unknown, headers: http.OutgoingHttpHeaders = {}): void {
  response.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}

/** Each vendor's 429 for an exhausted quota, with the fields its CLI reads the reset time from. */
function quota(vendor: Vendor, resetAt: Date, response: http.ServerResponse): void {
  const epoch = Math.floor(resetAt.getTime() / 1000);
  if (vendor === 'anthropic') {
    return json(
      response,
      429,
      {
        type: 'error',
        error: { type: 'rate_limit_error', message: "This request would exceed your account's rate limit. Please try again later." },
      },
      {
        'anthropic-ratelimit-unified-status': 'rejected',
        'anthropic-ratelimit-unified-reset': String(epoch),
        'anthropic-ratelimit-unified-representative-claim': 'five_hour',
        'retry-after': String(Math.max(1, epoch - Math.floor(Date.now() / 1000))),
      },
    );
  }
  if (vendor === 'gemini') {
    // The Gemini API's daily free-tier quota, which the CLI treats as terminal (no retry).
    const seconds = Math.max(1, epoch - Math.floor(Date.now() / 1000));
    return json(response, 429, {
      error: {
        code: 429,
        message: `You exceeded your current quota, please check your plan and billing details. Please retry in ${seconds}s.`,
        status: 'RESOURCE_EXHAUSTED',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
            violations: [
              {
                quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
                quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier',
                quotaValue: '50',
              },
            ],
          },
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${seconds}s` },
        ],
      },
    });
  }
  return json(response, 429, {
    error: {
      type: 'usage_limit_reached',
      code: 'usage_limit_reached',
      message: 'The usage limit has been reached',
      plan_type: 'plus',
      resets_at: epoch,
      resets_in_seconds: Math.max(1, epoch - Math.floor(Date.now() / 1000)),
    },
  });
}

/**
 * Each vendor's answer when its servers are overloaded: Anthropic's 529, OpenAI's and Google's 503,
 * asking to retry after a second, which keeps the CLIs' own retries short.
 */
function overloaded(vendor: Vendor, response: http.ServerResponse): void {
  const retryAfter = { 'retry-after': '1' };
  if (vendor === 'anthropic') {
    return json(response, 529, { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, retryAfter);
  }
  if (vendor === 'gemini') {
    const error = { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' };
    return json(response, 503, { error }, retryAfter);
  }
  return json(
    response,
    503,
    { error: { message: 'The server is overloaded or not ready yet.', type: 'server_error', code: null } },
    retryAfter,
  );
}

function whole(vendor: Vendor, turn: Turn, model: string, usage: Usage): unknown {
  if (vendor === 'anthropic') {
    const content =
      turn.kind === 'text'
        ? [{ type: 'text', text: turn.text }]
        : [{ type: 'tool_use', id: `toolu_${turn.call}`, name: turn.name, input: turn.args }];
    return {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: turn.kind === 'text' ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: { ...anthropicInput(usage), output_tokens: usage.output },
    };
  }
  if (vendor === 'gemini') return geminiChunk(turn, model, usage);
  if (vendor === 'chat') {
    const message =
      turn.kind === 'text'
        ? { role: 'assistant', content: turn.text }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: `call_${turn.call}`, type: 'function', function: { name: turn.name, arguments: JSON.stringify(turn.args) } },
            ],
          };
    return {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message, finish_reason: turn.kind === 'text' ? 'stop' : 'tool_calls' }],
      usage: chatUsage(usage),
    };
  }
  return responsesObject(turn, model, 'completed', usage);
}

/** Anthropic counts the input read from and written to its cache apart from `input_tokens`. */
function anthropicInput(usage: Usage): Json {
  return {
    input_tokens: usage.input - usage.cached.read - usage.cached.written,
    cache_creation_input_tokens: usage.cached.written,
    cache_read_input_tokens: usage.cached.read,
  };
}

function chatUsage(usage: Usage): Json {
  return {
    prompt_tokens: usage.input,
    prompt_tokens_details: { cached_tokens: usage.cached.read },
    completion_tokens: usage.output,
    total_tokens: usage.input + usage.output,
  };
}

function events(vendor: Vendor, turn: Turn, model: string, usage: Usage): Array<[string | null, unknown]> {
  if (vendor === 'anthropic') return anthropicEvents(turn, model, usage);
  if (vendor === 'gemini') return [[null, geminiChunk(turn, model, usage)]];
  if (vendor === 'chat') return chatEvents(turn, model, usage);
  return responsesEvents(turn, model, usage);
}

function anthropicEvents(turn: Turn, model: string, usage: Usage): Array<[string, unknown]> {
  const start = {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...anthropicInput(usage), output_tokens: 1 },
    },
  };
  const block =
    turn.kind === 'text' ? { type: 'text', text: '' } : { type: 'tool_use', id: `toolu_${turn.call}`, name: turn.name, input: {} };
  const delta =
    turn.kind === 'text' ? { type: 'text_delta', text: turn.text } : { type: 'input_json_delta', partial_json: JSON.stringify(turn.args) };
  return [
    ['message_start', start],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: block }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      {
        type: 'message_delta',
        delta: { stop_reason: turn.kind === 'text' ? 'end_turn' : 'tool_use', stop_sequence: null },
        usage: { output_tokens: usage.output },
      },
    ],
    ['message_stop', { type: 'message_stop' }],
  ];
}

function responsesItem(turn: Turn): Json {
  return turn.kind === 'text'
    ? {
        type: 'message',
        id: 'msg_1',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: turn.text, annotations: [] }],
      }
    : {
        type: 'function_call',
        id: `fc_${turn.call}`,
        status: 'completed',
        call_id: `call_${turn.call}`,
        ...namespaced(turn.name),
        arguments: JSON.stringify(turn.args),
      };
}

function namespaced(name: string): Json {
  const [namespace, tool] = name.includes('/') ? name.split('/') : [null, name];
  return namespace ? { namespace, name: tool } : { name };
}

function responsesObject(turn: Turn, model: string, status: string, usage: Usage): Json {
  return {
    id: 'resp_1',
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model,
    output: status === 'completed' ? [responsesItem(turn)] : [],
    usage:
      status === 'completed'
        ? {
            input_tokens: usage.input,
            input_tokens_details: { cached_tokens: usage.cached.read },
            output_tokens: usage.output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.input + usage.output,
          }
        : null,
  };
}

function responsesEvents(turn: Turn, model: string, usage: Usage): Array<[string, unknown]> {
  const item = responsesItem(turn);
  const events: Array<[string, unknown]> = [
    ['response.created', { type: 'response.created', response: responsesObject(turn, model, 'in_progress', usage) }],
    ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress' } }],
  ];
  if (turn.kind === 'text') {
    events.push([
      'response.output_text.delta',
      { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: turn.text },
    ]);
  }
  events.push(
    ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
    ['response.completed', { type: 'response.completed', response: responsesObject(turn, model, 'completed', usage) }],
  );
  return events;
}

function chatEvents(turn: Turn, model: string, usage: Usage): Array<[null, unknown]> {
  const chunk = (delta: Json, finish: string | null, reported?: Json) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(reported ? { usage: reported } : {}),
  });
  const delta =
    turn.kind === 'text'
      ? { role: 'assistant', content: turn.text }
      : {
          role: 'assistant',
          tool_calls: [
            { index: 0, id: `call_${turn.call}`, type: 'function', function: { name: turn.name, arguments: JSON.stringify(turn.args) } },
          ],
        };
  return [
    [null, chunk(delta, null)],
    [null, chunk({}, turn.kind === 'text' ? 'stop' : 'tool_calls', chatUsage(usage))],
  ];
}

function geminiChunk(turn: Turn, model: string, usage: Usage): Json {
  const part = turn.kind === 'text' ? { text: turn.text } : { functionCall: { name: turn.name, args: turn.args } };
  return {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: usage.input,
      cachedContentTokenCount: usage.cached.read,
      candidatesTokenCount: usage.output,
      totalTokenCount: usage.input + usage.output,
    },
    modelVersion: model,
  };
}
