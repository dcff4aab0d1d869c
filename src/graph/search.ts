// Adjacency lists and breadth-first search over vertex names, shared by loop bodies and cycle checks.

export type Adjacency = Map<string, string[]>;

export function addTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function adjacency(pairs: Iterable<readonly [string, string]>): Adjacency {
  const map: Adjacency = new Map();
  for (const [from, to] of pairs) addTo(map, from, to);
  return map;
}

/** Every vertex reachable from the starts (the starts included), each mapped to its predecessor on a shortest path. */
export function breadthFirst(starts: Iterable<string>, next: Adjacency): Map<string, string | null> {
  const predecessor = new Map<string, string | null>();
  for (const start of starts) predecessor.set(start, null);
  const queue = [...predecessor.keys()];
  for (let i = 0; i < queue.length; i++) {
    for (const neighbour of next.get(queue[i]) ?? []) {
      if (!predecessor.has(neighbour)) {
        predecessor.set(neighbour, queue[i]);
        queue.push(neighbour);
      }
    }
  }
  return predecessor;
}

/** The vertices of a shortest path from `from` to `to`, or null when `to` cannot be reached. */
export function shortestPath(from: string, to: string, next: Adjacency): string[] | null {
  const predecessor = breadthFirst([from], next);
  if (!predecessor.has(to)) return null;
  const path: string[] = [];
  for (let vertex: string | null = to; vertex !== null; vertex = predecessor.get(vertex) ?? null) path.push(vertex);
  return path.reverse();
}
