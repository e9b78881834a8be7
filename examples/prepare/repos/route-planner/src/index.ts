// summary: Public API of the route planner.
export { shortestPath } from './dijkstra';
export { estimateArrival } from './eta';
