// The app's live events: one watcher per server reads which loops moved and whose running output grew
// (from the store, twice a second, only while a page listens) and tells every open page at once, so ten
// tabs cost what one does.
import type http from 'node:http';
import { loopActivityMarks, runningOutputMarks } from '../client/activity-service';
import type { ClientContext } from '../client/context';
import { startEventStream } from './responses';

/** How often the watcher looks: a node's new state reaches a page within this and the page's read. */
export const WATCH_INTERVAL_MS = 400;
/** A comment now and then keeps proxies from closing a quiet stream. */
const KEEP_ALIVE_MS = 15_000;
/** How soon a page's EventSource reconnects after the stream drops. */
const RECONNECT_MS = 1_000;

export class LiveFeed {
  private readonly listeners = new Set<http.ServerResponse>();
  private marks = new Map<string, string>();
  private outputs = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private sinceKeepAlive = 0;

  constructor(private readonly ctx: ClientContext) {}

  /** Streams `loops` events (the ids of the loops that moved) and `output` events (the ids of the running node runs whose output moved) to the page until it goes. */
  listen(request: http.IncomingMessage, response: http.ServerResponse): void {
    startEventStream(response);
    response.write(`retry: ${RECONNECT_MS}\n\n`);
    this.listeners.add(response);
    request.on('close', () => {
      this.listeners.delete(response);
      if (this.listeners.size === 0) this.pause();
    });
    if (!this.timer) void this.watch();
  }

  /** Ends every stream, so the server can stop. */
  close(): void {
    this.pause();
    for (const response of this.listeners) response.end();
    this.listeners.clear();
  }

  private pause(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async watch(): Promise<void> {
    this.timer = setTimeout(() => void this.watch(), WATCH_INTERVAL_MS);
    const [marks, outputs] = await Promise.all([loopActivityMarks(this.ctx), runningOutputMarks(this.ctx)]).catch((error: unknown) => {
      console.error('canopy web: reading what changed failed:', error);
      return [this.marks, this.outputs];
    });
    const moved = changedKeys(this.marks, marks);
    // A run that ended leaves `outputs`; its end is a move of its loop.
    const printed = changedKeys(this.outputs, outputs);
    this.marks = marks;
    this.outputs = outputs;
    this.sinceKeepAlive += WATCH_INTERVAL_MS;
    if (moved.length > 0) this.broadcast(`event: loops\ndata: ${JSON.stringify(moved)}\n\n`);
    if (printed.length > 0) this.broadcast(`event: output\ndata: ${JSON.stringify(printed)}\n\n`);
    if (moved.length + printed.length === 0 && this.sinceKeepAlive >= KEEP_ALIVE_MS) this.broadcast(': keep-alive\n\n');
  }

  private broadcast(text: string): void {
    this.sinceKeepAlive = 0;
    for (const response of this.listeners) response.write(text);
  }
}

/** The keys of `now` whose value differs from `before`'s. */
const changedKeys = (before: Map<string, string>, now: Map<string, string>): string[] =>
  [...now].filter(([key, mark]) => before.get(key) !== mark).map(([key]) => key);
