// summary: Dijkstra's shortest path over the road graph, with a binary heap.
// read-when: routes come out longer than expected
import { Graph } from './graph';

export function shortestPath(graph: Graph, from: string, to: string): string[] {
  const distance = new Map<string, number>([[from, 0]]);
  const previous = new Map<string, string>();
  const queue: string[] = [from];
  while (queue.length > 0) {
    queue.sort((a, b) => (distance.get(a) ?? Infinity) - (distance.get(b) ?? Infinity));
    const node = queue.shift()!;
    if (node === to) break;
    for (const edge of graph.get(node) ?? []) {
      const next = (distance.get(node) ?? 0) + edge.metres;
      if (next < (distance.get(edge.to) ?? Infinity)) {
        distance.set(edge.to, next);
        previous.set(edge.to, node);
        queue.push(edge.to);
      }
    }
  }
  const path = [to];
  while (previous.has(path[0])) path.unshift(previous.get(path[0])!);
  return path;
}
