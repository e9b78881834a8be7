import { estimateArrival } from '../src/eta';
if (Math.round(estimateArrival([1000], [36], [36])) !== 100) throw new Error('free flow ETA');
