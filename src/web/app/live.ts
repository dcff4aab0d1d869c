// One EventSource per page, shared by its views: each reads again when a loop it shows moves, and
// everything reads again after the stream comes back (what moved while it was down is unknown).
import { useEffect, useState } from 'preact/hooks';

type Listener = (moved: string[] | 'all') => void;
const listeners = new Set<Listener>();
let source: EventSource | null = null;
const RECONNECT_MS = 1_000;
/** Whether a stream was open before: an open after that is a comeback, when everything is read again. */
let connectedBefore = false;

function connect(): void {
  source = new EventSource('/api/events');
  source.addEventListener('loops', (event) => {
    const moved = JSON.parse((event as MessageEvent<string>).data) as string[];
    for (const listener of listeners) listener(moved);
  });
  source.addEventListener('open', () => {
    if (connectedBefore) for (const listener of listeners) listener('all');
    connectedBefore = true;
    document.body.dataset.live = 'open';
  });
  source.addEventListener('error', () => {
    document.body.dataset.live = 'reconnecting';
    // The browser retries a dropped stream by itself, but gives up on an answer that is not a stream
    // (a server on its way down or up): then start again a little later.
    if (source?.readyState === EventSource.CLOSED) {
      source = null;
      setTimeout(connect, RECONNECT_MS);
    }
  });
}

/** A number that grows whenever one of `loopIds` moves (any loop when null), to read again on. */
export function useLiveVersion(loopIds: string[] | null): number {
  const [version, setVersion] = useState(0);
  const key = loopIds?.join(',') ?? '*';
  useEffect(() => {
    if (!source) connect();
    const listener: Listener = (moved) => {
      if (moved === 'all' || loopIds === null || moved.some((id) => loopIds.includes(id))) setVersion((n) => n + 1);
    };
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, [key]);
  return version;
}
