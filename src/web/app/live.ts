// One EventSource per page, shared by its views: each reads again when a loop it shows moves (or the
// output of a running node run it shows), and everything reads again after the stream comes back (what
// moved while it was down is unknown).
import { useEffect, useState } from 'preact/hooks';

/** What moved: loops (`loops` events) or the output of running node runs (`output` events), by id. */
type Moved = { loops: string[] } | { runs: string[] } | 'all';
type Listener = (moved: Moved) => void;
const listeners = new Set<Listener>();
let source: EventSource | null = null;
const RECONNECT_MS = 1_000;
/** Whether a stream was open before: an open after that is a comeback, when everything is read again. */
let connectedBefore = false;

function connect(): void {
  source = new EventSource('/api/events');
  const tell = (moved: Moved) => {
    for (const listener of listeners) listener(moved);
  };
  source.addEventListener('loops', (event) => tell({ loops: JSON.parse((event as MessageEvent<string>).data) as string[] }));
  source.addEventListener('output', (event) => tell({ runs: JSON.parse((event as MessageEvent<string>).data) as string[] }));
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

/**
 * A number that grows whenever one of `loopIds` moves (any loop when null) or the output of one of
 * `runIds` does, to read again on.
 */
export function useLiveVersion(loopIds: string[] | null, runIds: string[] = []): number {
  const [version, setVersion] = useState(0);
  const key = `${loopIds?.join(',') ?? '*'};${runIds.join(',')}`;
  useEffect(() => {
    if (!source) connect();
    const listener: Listener = (moved) => {
      const concerned =
        moved === 'all' ||
        ('loops' in moved && (loopIds === null || moved.loops.some((id) => loopIds.includes(id)))) ||
        ('runs' in moved && moved.runs.some((id) => runIds.includes(id)));
      if (concerned) setVersion((n) => n + 1);
    };
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, [key]);
  return version;
}
