// Pan and zoom over an SVG's viewBox, by hand with pointer events: a drag (mouse or one finger) pans,
// two fingers pinch, the wheel and the +/- buttons zoom about a point, and fit shows the whole again.
// A press that moved is a drag, not a click, so a vertex's link opens only when tapped.
import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

export interface ViewBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Point {
  x: number;
  y: number;
}

/** How far a press moves, in screen pixels, before it is a drag. */
const DRAG_SLOP = 4;
/** Each +/- press zooms by this factor. */
export const ZOOM_STEP = 1.5;
/** At most this far in, and out, from the whole graph. */
const MOST_ZOOM = 8;
const LEAST_ZOOM = 0.5;
/** Zoom per pixel of wheel travel. */
const WHEEL_RATE = 0.002;

export interface PanZoom {
  view: ViewBox;
  svgRef: RefObject<SVGSVGElement>;
  /** How far in from the whole graph: 1 shows it all. */
  zoom: number;
  zoomBy: (factor: number) => void;
  fit: () => void;
  handlers: {
    onPointerDown: (event: PointerEvent) => void;
    onPointerMove: (event: PointerEvent) => void;
    onPointerUp: (event: PointerEvent) => void;
    onPointerCancel: (event: PointerEvent) => void;
    onClickCapture: (event: MouseEvent) => void;
  };
}

export function usePanZoom(whole: { width: number; height: number }): PanZoom {
  const full: ViewBox = { x: 0, y: 0, ...whole };
  const [view, setView] = useState<ViewBox>(full);
  const svgRef = useRef<SVGSVGElement>(null);
  const pointers = useRef(new Map<number, Point>());
  const gesture = useRef<{ start: Point; dragging: boolean; moved: boolean }>({ start: { x: 0, y: 0 }, dragging: false, moved: false });
  // A new layout (a vertex more or less) shows whole again; a new state of the same layout keeps the view.
  useEffect(() => setView(full), [whole.width, whole.height]);

  const zoom = whole.width / view.width;
  /** The graph's point under a point of the screen. */
  const toGraph = (client: Point): Point => {
    const matrix = svgRef.current?.getScreenCTM();
    if (!matrix) return { x: view.x + view.width / 2, y: view.y + view.height / 2 };
    return new DOMPoint(client.x, client.y).matrixTransform(matrix.inverse());
  };
  const zoomAbout = (factor: number, at: Point) =>
    setView((now) => {
      const next = Math.min(MOST_ZOOM, Math.max(LEAST_ZOOM, (whole.width / now.width) * factor));
      const scale = whole.width / now.width / next;
      return { x: at.x - (at.x - now.x) * scale, y: at.y - (at.y - now.y) * scale, width: now.width * scale, height: now.height * scale };
    });
  const panBy = (dx: number, dy: number) => {
    const rect = svgRef.current!.getBoundingClientRect();
    setView((now) => ({ ...now, x: now.x - (dx * now.width) / rect.width, y: now.y - (dy * now.height) / rect.height }));
  };

  useEffect(() => {
    const svg = svgRef.current;
    if (!svg) return;
    // Not passive, so the page does not scroll while the wheel zooms the graph.
    const onWheel = (event: WheelEvent) => {
      event.preventDefault();
      zoomAbout(Math.exp(-event.deltaY * WHEEL_RATE), toGraph({ x: event.clientX, y: event.clientY }));
    };
    svg.addEventListener('wheel', onWheel, { passive: false });
    return () => svg.removeEventListener('wheel', onWheel);
  });

  const release = (event: PointerEvent) => {
    pointers.current.delete(event.pointerId);
    if (pointers.current.size === 0) gesture.current.dragging = false;
  };
  return {
    view,
    svgRef,
    zoom,
    zoomBy: (factor) => zoomAbout(factor, { x: view.x + view.width / 2, y: view.y + view.height / 2 }),
    fit: () => setView(full),
    handlers: {
      onPointerDown(event) {
        pointers.current.set(event.pointerId, { x: event.clientX, y: event.clientY });
        if (pointers.current.size === 1) gesture.current = { start: { x: event.clientX, y: event.clientY }, dragging: false, moved: false };
      },
      onPointerMove(event) {
        const before = pointers.current.get(event.pointerId);
        if (!before) return;
        const now = { x: event.clientX, y: event.clientY };
        const state = gesture.current;
        if (!state.dragging && Math.hypot(now.x - state.start.x, now.y - state.start.y) < DRAG_SLOP) return;
        if (!state.dragging) {
          // Captured only once it is a drag: a capture from the press would take the click from a vertex's link.
          state.dragging = state.moved = true;
          svgRef.current!.setPointerCapture(event.pointerId);
        }
        const others = [...pointers.current].filter(([id]) => id !== event.pointerId).map(([, point]) => point);
        pointers.current.set(event.pointerId, now);
        if (others.length === 0) return panBy(now.x - before.x, now.y - before.y);
        const other = others[0];
        const spread = Math.hypot(now.x - other.x, now.y - other.y) / Math.max(1, Math.hypot(before.x - other.x, before.y - other.y));
        zoomAbout(spread, toGraph({ x: (now.x + other.x) / 2, y: (now.y + other.y) / 2 }));
      },
      onPointerUp: release,
      onPointerCancel: release,
      onClickCapture(event) {
        if (!gesture.current.moved) return;
        gesture.current.moved = false;
        event.preventDefault();
        event.stopPropagation();
      },
    },
  };
}
