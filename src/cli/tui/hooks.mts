// What `canopy tui` reads and when: the sidebar's lists on a slow interval, the selected loop
// followed, the clock while a node runs, and the keys. State changes only when what was read changed,
// so an idle app does not redraw.
import { useInput } from 'ink';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { LoopPicture } from '../../client/loop-picture-service.js';
import type { Loop } from '../../domain/loop.js';
import { errorText } from './commands.mjs';
import type { LoopDetails, SidebarLists, TuiActions } from './store-actions.js';

const SIDEBAR_REFRESH_MS = 2_000;

/** Calls `set` only when the value read differs from the last one, so an unchanged read renders nothing. */
function useChangedState<T>(initial: T): [T, (next: T) => void] {
  const [value, setValue] = useState(initial);
  const last = useRef(JSON.stringify(initial));
  return [
    value,
    (next: T) => {
      const text = JSON.stringify(next);
      if (text === last.current) return;
      last.current = text;
      setValue(next);
    },
  ];
}

type InputHandler = Parameters<typeof useInput>[0];

/**
 * ink's useInput swaps its handler in a passive effect, which a busy machine runs after the frame is
 * on the screen: a key pressed at once went to the last frame's handler (a sidebar still empty). Here
 * the handler is swapped as the frame is committed, so a key acts on what the screen shows.
 */
export function useLatestInput(handler: InputHandler): void {
  const latest = useRef(handler);
  useLayoutEffect(() => {
    latest.current = handler;
  });
  useInput(useMemo<InputHandler>(() => (input, key) => latest.current(input, key), []));
}

/** The sidebar's lists and the pending autoruns, read now, every SIDEBAR_REFRESH_MS, and again when `refreshes` changes. */
export function useSidebarLists(actions: TuiActions, refreshes: number, failed: (message: string) => void) {
  const [lists, setLists] = useChangedState<SidebarLists | null>(null);
  const [autoruns, setAutoruns] = useChangedState<Record<string, string>>({});
  useEffect(() => {
    let stopped = false;
    const read = () => {
      // Apart from the lists, so a slow Temporal does not hold them back.
      void actions.readAutoruns().then((next) => !stopped && setAutoruns(next));
      return actions.readSidebar().then(
        (next) => !stopped && setLists(next),
        (error: unknown) => failed(errorText(error)),
      );
    };
    void read();
    const timer = setInterval(() => void read(), SIDEBAR_REFRESH_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [actions, refreshes]);
  return { lists, autoruns };
}

/** The loop's live picture and its specs, edges and runs while it is selected; `refresh()` reads them now. */
export function useFollowedLoop(
  actions: TuiActions,
  loop: Loop | null,
  runPages: number,
  on: { followed(): void; statusChanged(): void; failed(message: string): void },
) {
  const [picture, setPicture] = useChangedState<LoopPicture | null>(null);
  const [details, setDetails] = useChangedState<LoopDetails | null>(null);
  const following = useRef<{ refresh(): void } | null>(null);
  const pages = useRef(runPages);
  const readDetails = (loopId: string) =>
    actions.loopDetails(loopId, pages.current).then(setDetails, (error: unknown) => on.failed(errorText(error)));
  useEffect(() => {
    pages.current = 1;
    setPicture(null);
    setDetails(null);
    on.followed();
    if (!loop) return;
    let status = loop.status as string;
    const followed = actions.follow(loop.id, (next) => {
      setPicture(next);
      // On a change of status the sidebar's glyph catches up at once rather than at its next refresh.
      if (next.status !== status) on.statusChanged();
      status = next.status;
      void readDetails(loop.id);
    });
    following.current = followed;
    return () => followed.stop();
  }, [actions, loop?.id]);
  useEffect(() => {
    pages.current = runPages;
    if (loop && runPages > 1) void readDetails(loop.id);
  }, [runPages]);
  const refresh = useMemo(() => () => following.current?.refresh(), []);
  return { picture, details, refresh };
}

/** Now, ticking each second only while a node runs, for elapsed times. */
export function useNow(picture: LoopPicture | null): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    setNow(Date.now());
    if (!picture?.running) return;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [picture]);
  return now;
}
