// summary: Command-line front end: route between two addresses and print the ETA.
import { shortestPath } from './dijkstra';
export function main(argv: string[]): number {
  if (argv.length !== 2) { console.error('usage: route <from> <to>'); return 2; }
  console.log(shortestPath(new Map(), argv[0], argv[1]).join(' -> '));
  return 0;
}
