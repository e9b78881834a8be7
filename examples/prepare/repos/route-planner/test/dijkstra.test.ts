import { addRoad, Graph } from '../src/graph';
import { shortestPath } from '../src/dijkstra';

const graph: Graph = new Map();
addRoad(graph, 'a', 'b', 5);
addRoad(graph, 'b', 'c', 5);
addRoad(graph, 'a', 'c', 20);
if (shortestPath(graph, 'a', 'c').join() !== 'a,b,c') throw new Error('not the shortest path');
