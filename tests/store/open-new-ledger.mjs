// One of the processes of the "same new ledger at once" test: opens (creates) the ledger through the built
// library (dist/, so `npm run build` first) at a given instant, so several processes race on one new file.
//
//   node open-new-ledger.mjs <db> <epoch ms to start at>
//
// Prints `ok`, or `error <message>`.
import { openStore } from '../../dist/src/store/open-store.js';

const [db, at] = process.argv.slice(2);
// Everything is loaded before the wait, so the processes reach the file within microseconds of each other:
// asleep until 10 ms before the instant (six spinning processes would take CPU from tests beside them), then a
// spin, since a timer would add its own jitter.
const sleep = Number(at) - 10 - Date.now();
if (sleep > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, sleep);
while (Date.now() < Number(at)) {
  // spin
}
try {
  const store = await openStore(db, { create: true });
  await store.close();
  process.stdout.write('ok\n');
} catch (error) {
  process.stdout.write(`error ${error instanceof Error ? error.message : String(error)}\n`);
}
