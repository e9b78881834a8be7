// summary: Estimated time of arrival along a route, traffic included.
import { slowdown } from './traffic';

export function estimateArrival(metres: number[], freeFlowKmh: number[], observedKmh: number[]): number {
  return metres.reduce((seconds, m, i) => seconds + (m / (freeFlowKmh[i] / 3.6)) * slowdown(freeFlowKmh[i], observedKmh[i]), 0);
}
