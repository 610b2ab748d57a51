// The appending process of the kill -9 test: appends runs to one pipeline through the built
// library (dist/, so `npm run build` first) until it is killed, and prints an acknowledgement
// line after each call the ledger answered, so the test can check each one is stored.
//
//   node kill-writer.mjs <db> <pipeline> <leaseMs>
//
// Each life continues after the last date the ledger holds (a start that landed but was
// never acknowledged is there too), so the dates stay contiguous for the final backfill.
import { isLedgerError, openLedger } from '../../dist/src/index.js';

const [db, pipeline, lease] = process.argv.slice(2);
if (!db || !pipeline || !lease) {
  process.stderr.write('usage: node kill-writer.mjs <db> <pipeline> <leaseMs>\n');
  process.exit(2);
}
const DAY = 86_400_000;
const ledger = await openLedger({ db, clock: Date.now, actor: `kill-writer-${process.pid}` });
const { state, definition } = await ledger.pipeline(pipeline);
const last = [...state.dates.keys()].sort().at(-1);
let at = last === undefined ? Date.parse(definition.start) : Date.parse(`${last}T00:00:00Z`) + DAY;
const ack = (...words) => process.stdout.write(`ack ${words.join(' ')}\n`);
const stopAt = Date.now() + 20_000;
for (let i = 0; Date.now() < stopAt; i++, at += DAY) {
  const date = new Date(at).toISOString().slice(0, 10);
  let run;
  try {
    run = await ledger.start({ pipeline, date, lease: Number(lease) });
  } catch (error) {
    // Another life's start may have landed without its acknowledgement; never this life's own.
    if (isLedgerError(error) && (error.code === 'ledger.alreadyRunning' || error.code === 'ledger.alreadySucceeded')) continue;
    throw error;
  }
  ack('started', run.runId, date);
  // A moment between start and outcome, so some kills land while a run is open.
  await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 20)));
  if (i % 4 === 3) {
    await ledger.fail({ runId: run.runId, error: `failed on purpose ${date}` });
    ack('failed', run.runId);
  } else {
    await ledger.succeed({ runId: run.runId, metrics: { i } });
    ack('succeeded', run.runId);
  }
}
await ledger.close();
