// The appending process of the kill -9 test: appends runs to one pipeline through the built
// library (dist/, so `npm run build` first) until it is killed, and prints an acknowledgement
// line after each call the ledger answered, so the test can check each one is stored. Runs are started and ended
// a few at a time, so appends made together (one SQLite transaction for a turn's appends) are killed too.
//
//   node kill-writer.mjs <db> <pipeline> <leaseMs>
//
// Each life continues after the last date the ledger holds (a start that landed but was
// never acknowledged is there too); a date a kill left without a run is run by the final backfill.
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
// Three dates at a time, started together and ended together: on SQLite the first append of a turn commits at once and
// the others of the turn share one transaction, so kills also land while such a turn is being committed.
const GROUP = 3;
const startOne = async (date) => {
  try {
    return await ledger.start({ pipeline, date, lease: Number(lease) });
  } catch (error) {
    // Another life's start may have landed without its acknowledgement; never this life's own.
    if (isLedgerError(error) && (error.code === 'ledger.alreadyRunning' || error.code === 'ledger.alreadySucceeded')) return null;
    throw error;
  }
};
for (let i = 0; Date.now() < stopAt; i += GROUP, at += GROUP * DAY) {
  const dates = Array.from({ length: GROUP }, (_, k) => new Date(at + k * DAY).toISOString().slice(0, 10));
  const runs = await Promise.all(
    dates.map(async (date) => {
      const run = await startOne(date);
      if (run) ack('started', run.runId, date);
      return run;
    }),
  );
  // A moment between start and outcome, so some kills land while runs are open.
  await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 20)));
  await Promise.all(
    runs.map(async (run, k) => {
      if (!run) return;
      if ((i + k) % 4 === 3) {
        await ledger.fail({ runId: run.runId, error: `failed on purpose ${dates[k]}` });
        ack('failed', run.runId);
      } else {
        await ledger.succeed({ runId: run.runId, metrics: { i: i + k } });
        ack('succeeded', run.runId);
      }
    }),
  );
}
await ledger.close();
