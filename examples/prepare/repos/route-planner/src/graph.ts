// summary: The road graph: nodes, directed edges and their lengths in metres.
export interface Edge { to: string; metres: number; }
export type Graph = Map<string, Edge[]>;

export function addRoad(graph: Graph, from: string, to: string, metres: number, oneWay = false): void {
  graph.set(from, [...(graph.get(from) ?? []), { to, metres }]);
  if (!oneWay) graph.set(to, [...(graph.get(to) ?? []), { to: from, metres }]);
}
