// The verify worker as runledger ships it, announcing on a BroadcastChannel once it has loaded, so a test can
// hold back its batches until the worker takes them (the worker itself tells only the thread that started it).
import { BroadcastChannel } from 'node:worker_threads';

await import('../../dist/src/audit/verify-worker.js');
const channel = new BroadcastChannel('verify-worker-loaded');
channel.postMessage('loaded');
channel.close();
