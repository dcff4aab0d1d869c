// A stand-in model API on loopback, so the real agent CLIs run end to end without a model: Anthropic
// Messages, OpenAI Responses and Chat Completions, and Gemini generateContent, streaming as the vendors do.
// Each test scripts what "the model" does when the CLI first offers it tools: call a tool (matched by the
// end of its name, since every CLI prefixes MCP tools its own way; in strict mode only when the conversation names
// it), answer a usage limit, be overloaded, or hang. Once the conversation holds the tool's result it answers the
// final text. Requests without tools (titles, probes) get a short text answer. Every request is logged for the
// tests and for finding out what a CLI sends.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

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
}

export interface LoggedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: unknown;
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

export const USAGE = { input: 1234, output: 56 };

type Vendor = 'anthropic' | 'responses' | 'chat' | 'gemini';
type Turn = { kind: 'text'; text: string } | { kind: 'tool'; name: string; args: Record<string, unknown> };
type Json = Record<string, any>;

export async function startModelApi(): Promise<ModelApi> {
  let current: ModelScript = { action: { kind: 'text' }, final: 'done' };
  const requests: LoggedRequest[] = [];
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
      requests.push({ method: request.method ?? '', path: url.pathname + url.search, headers: request.headers, body });
      const script = current;
      const { heldUntil } = script;
      if (heldUntil && callsTool(url, body ?? {}, script)) {
        held++;
        void heldUntil.then(() => {
          held--;
          answer(url, body ?? {}, response, script, hanging);
        });
      } else answer(url, body ?? {}, response, script, hanging);
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
  return vendor !== null && script.action.kind === 'tool' && toolNames(vendor, body).length > 0 && !hasToolResult(vendor, body);
}

function answer(url: URL, body: Json, response: http.ServerResponse, script: ModelScript, hanging: Set<http.ServerResponse>): void {
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
  const answered = hasToolResult(vendor, body);
  const { action } = script;
  if (offered && !answered && action.kind === 'hang') {
    hanging.add(response);
    response.on('close', () => hanging.delete(response));
    return void response.writeHead(200, { 'Content-Type': 'text/event-stream' }).flushHeaders();
  }
  if (offered && !answered && action.kind === 'quota') return quota(vendor, action.resetAt, response);
  if (offered && !answered && action.kind === 'overloaded') return overloaded(vendor, response);
  let turn: Turn = { kind: 'text', text: offered ? script.final : 'ok' };
  if (offered && !answered && action.kind === 'tool' && (!script.strict || conversationNames(body, action.tool))) {
    const name = tools.find((tool) => tool.endsWith(action.tool));
    turn = name
      ? { kind: 'tool', name, args: action.args }
      : { kind: 'text', text: `no tool ending in ${action.tool}: ${tools.join(' ')}` };
  }
  const stream = vendor === 'gemini' ? url.pathname.includes('streamGenerateContent') : body.stream === true;
  const model = String(body.model ?? url.pathname.match(/models\/([^:]+)/)?.[1] ?? 'stand-in');
  if (!stream) return void json(response, 200, whole(vendor, turn, model));
  response.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
  for (const [event, data] of events(vendor, turn, model)) {
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

function hasToolResult(vendor: Vendor, body: Json): boolean {
  const text = JSON.stringify(vendor === 'gemini' ? body.contents : vendor === 'responses' ? body.input : body.messages);
  if (vendor === 'anthropic') return text.includes('"tool_result"');
  if (vendor === 'responses') return text.includes('"function_call_output"');
  if (vendor === 'chat') return text.includes('"role":"tool"');
  return text.includes('"functionResponse"');
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

function whole(vendor: Vendor, turn: Turn, model: string): unknown {
  if (vendor === 'anthropic') {
    const content =
      turn.kind === 'text' ? [{ type: 'text', text: turn.text }] : [{ type: 'tool_use', id: 'toolu_1', name: turn.name, input: turn.args }];
    return {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model,
      content,
      stop_reason: turn.kind === 'text' ? 'end_turn' : 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: USAGE.input, output_tokens: USAGE.output },
    };
  }
  if (vendor === 'gemini') return geminiChunk(turn, model);
  if (vendor === 'chat') {
    const message =
      turn.kind === 'text'
        ? { role: 'assistant', content: turn.text }
        : {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_1', type: 'function', function: { name: turn.name, arguments: JSON.stringify(turn.args) } }],
          };
    return {
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, message, finish_reason: turn.kind === 'text' ? 'stop' : 'tool_calls' }],
      usage: { prompt_tokens: USAGE.input, completion_tokens: USAGE.output, total_tokens: USAGE.input + USAGE.output },
    };
  }
  return responsesObject(turn, model, 'completed');
}

function events(vendor: Vendor, turn: Turn, model: string): Array<[string | null, unknown]> {
  if (vendor === 'anthropic') return anthropicEvents(turn, model);
  if (vendor === 'gemini') return [[null, geminiChunk(turn, model)]];
  if (vendor === 'chat') return chatEvents(turn, model);
  return responsesEvents(turn, model);
}

function anthropicEvents(turn: Turn, model: string): Array<[string, unknown]> {
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
      usage: { input_tokens: USAGE.input, output_tokens: 1 },
    },
  };
  const block = turn.kind === 'text' ? { type: 'text', text: '' } : { type: 'tool_use', id: 'toolu_1', name: turn.name, input: {} };
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
        usage: { output_tokens: USAGE.output },
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
        id: 'fc_1',
        status: 'completed',
        call_id: 'call_1',
        ...namespaced(turn.name),
        arguments: JSON.stringify(turn.args),
      };
}

function namespaced(name: string): Json {
  const [namespace, tool] = name.includes('/') ? name.split('/') : [null, name];
  return namespace ? { namespace, name: tool } : { name };
}

function responsesObject(turn: Turn, model: string, status: string): Json {
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
            input_tokens: USAGE.input,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: USAGE.output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: USAGE.input + USAGE.output,
          }
        : null,
  };
}

function responsesEvents(turn: Turn, model: string): Array<[string, unknown]> {
  const item = responsesItem(turn);
  const events: Array<[string, unknown]> = [
    ['response.created', { type: 'response.created', response: responsesObject(turn, model, 'in_progress') }],
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
    ['response.completed', { type: 'response.completed', response: responsesObject(turn, model, 'completed') }],
  );
  return events;
}

function chatEvents(turn: Turn, model: string): Array<[null, unknown]> {
  const chunk = (delta: Json, finish: string | null, usage?: Json) => ({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...(usage ? { usage } : {}),
  });
  const delta =
    turn.kind === 'text'
      ? { role: 'assistant', content: turn.text }
      : {
          role: 'assistant',
          tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: turn.name, arguments: JSON.stringify(turn.args) } }],
        };
  return [
    [null, chunk(delta, null)],
    [
      null,
      chunk({}, turn.kind === 'text' ? 'stop' : 'tool_calls', {
        prompt_tokens: USAGE.input,
        completion_tokens: USAGE.output,
        total_tokens: USAGE.input + USAGE.output,
      }),
    ],
  ];
}

function geminiChunk(turn: Turn, model: string): Json {
  const part = turn.kind === 'text' ? { text: turn.text } : { functionCall: { name: turn.name, args: turn.args } };
  return {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: USAGE.input, candidatesTokenCount: USAGE.output, totalTokenCount: USAGE.input + USAGE.output },
    modelVersion: model,
  };
}
