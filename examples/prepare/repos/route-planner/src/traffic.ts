// summary: Live traffic speeds applied to edges as travel-time multipliers.
// read-when: arrival times ignore a reported jam
export function slowdown(freeFlowKmh: number, observedKmh: number): number {
  return observedKmh <= 0 ? Infinity : Math.max(1, freeFlowKmh / observedKmh);
}
