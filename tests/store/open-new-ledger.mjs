// One of the processes of the "same new ledger at once" test: opens (creates) the ledger through the built
// library (dist/, so `npm run build` first) at a given instant, so several processes race on one new file.
//
//   node open-new-ledger.mjs <db> <epoch ms to start at>
//
// Prints `ok`, or `error <message>`.
import { openStore } from '../../dist/src/index.js';

const [db, at] = process.argv.slice(2);
// Everything is loaded before the wait, so the processes reach the file within microseconds of each other.
while (Date.now() < Number(at)) {
  // busy-wait: a timer would add its own jitter
}
try {
  const store = await openStore(db, { create: true });
  await store.close();
  process.stdout.write('ok\n');
} catch (error) {
  process.stdout.write(`error ${error instanceof Error ? error.message : String(error)}\n`);
}
