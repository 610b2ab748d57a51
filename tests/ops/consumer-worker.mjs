// One life of the durable consumer in the kill test: a separate OS process
// that follows a ledger through the built library (dist/, so `npm run build`
// first) as consumer `killer`, and for each RunFailed appends one JSON line to
// <out>, says `delivered <position>` on stdout, then holds the event for
// <holdMs> before its handler returns, so a SIGKILL sent on that line lands
// between delivery and acknowledgement.
//
//   node consumer-worker.mjs <db> <out> <holdMs>
import { appendFileSync } from 'node:fs';
// The ledger module alone, not the package index: each of the 51 lives starts faster.
import { openLedger } from '../../dist/src/open-ledger.js';

const [db, out, hold] = process.argv.slice(2);
if (!db || !out || !hold) {
  process.stderr.write('usage: node consumer-worker.mjs <db> <out> <holdMs>\n');
  process.exit(2);
}
const ledger = await openLedger({ db, create: false });
const subscription = await ledger.subscribe(
  { consumer: 'killer', fromPosition: 1, filter: { types: ['RunFailed'] }, poll: 20 },
  async (event) => {
    appendFileSync(out, `${JSON.stringify({ position: event.position, pid: process.pid })}\n`);
    process.stdout.write(`delivered ${event.position}\n`);
    await new Promise((resolve) => setTimeout(resolve, Number(hold)));
  },
);
process.on('SIGTERM', () => {
  void subscription.stop().then(() => ledger.close()).then(() => process.exit(0));
});
process.stdout.write('ready\n');
await subscription.done;
