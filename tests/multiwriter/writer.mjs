// One writer of the multi-writer test: a separate OS process that appends to a
// shared ledger through the built library (dist/, so `npm run build` first).
// Plain ESM JavaScript because Node 20 cannot run the TypeScript sources directly.
//
//   node writer.mjs <db> <plan.json>
//
// The plan names this writer's own dates (never touched by another writer, so
// nothing may refuse them), the contested dates (every writer tries to start
// each one), the pipeline and a fixed clock. Once its ledger is open it prints
// `ready` and waits for a `go` line on stdin, which the parent sends when all
// eight are ready (so they start racing together instead of in spawn order). Prints one
// JSON line: what it did and how many events each operation wrote, counted
// from the ledger's own answers, for the parent to reconcile with the store.
import { readFileSync } from 'node:fs';
import { isLedgerError, openLedger } from '../../dist/src/index.js';

const [db, planFile] = process.argv.slice(2);
if (!db || !planFile) {
  process.stderr.write('usage: node writer.mjs <db> <plan.json>\n');
  process.exit(2);
}
/** @type {{ writer: number, pipeline: string, now: string, own: string[], contested: string[] }} */
const plan = JSON.parse(readFileSync(planFile, 'utf8'));
const nowMs = Date.parse(plan.now);
const ledger = await openLedger({ db, clock: () => nowMs, actor: `writer-${plan.writer}` });
const pipeline = plan.pipeline;

/** Refusals are expected outcomes of a contested start; anything else fails the writer. */
const REFUSED = new Set(['ledger.alreadyRunning', 'ledger.alreadySucceeded']);

const report = { writer: plan.writer, pid: process.pid, written: 0, operations: 0, byKind: {}, won: {}, refused: [], unexpected: [] };
const count = (kind, events) => {
  report.operations += 1;
  report.written += events;
  const entry = (report.byKind[kind] ??= { operations: 0, events: 0 });
  entry.operations += 1;
  entry.events += events;
};

/** Own dates: fail, retry, succeed, repeat the success (idempotent), clear, reprocess. */
function* ownDate(date) {
  const first = yield () => ledger.start({ pipeline, date });
  yield () => ledger.fail({ runId: first.runId, error: `writer ${plan.writer} failed on purpose` });
  const second = yield () => ledger.start({ pipeline, date });
  yield () => ledger.succeed({ runId: second.runId, metrics: { writer: plan.writer, rows: 100 } });
  yield () => ledger.succeed({ runId: second.runId, metrics: { writer: plan.writer, rows: 100 } });
  yield () => ledger.clear({ pipeline, dates: [date], reason: `writer ${plan.writer} reprocesses` });
  const third = yield () => ledger.start({ pipeline, date });
  yield () => ledger.succeed({ runId: third.runId, metrics: { writer: plan.writer, rows: 101 } });
}

/** Contested dates: every writer tries; the one that wins completes its run. */
function* contestedDate(date) {
  const won = yield () => ledger.start({ pipeline, date, leaseMs: 86_400_000 });
  if (won) {
    report.won[date] = won.runId;
    yield () => ledger.succeed({ runId: won.runId });
  }
}

/** Events an answer of the ledger says it appended. */
function eventsWritten(result) {
  if ('outcome' in result) return result.outcome === 'unchanged' ? 0 : 1;
  if ('cleared' in result) return result.dryRun ? 0 : result.cleared.length;
  if ('repeated' in result) return result.repeated ? 0 : 1;
  if ('attempt' in result) return result.takeoverOf ? 2 : 1;
  throw new Error(`unknown result ${JSON.stringify(result)}`);
}

async function drive(kind, sequence) {
  let step = sequence.next();
  while (!step.done) {
    let value = null;
    try {
      value = await step.value();
      count(kind, eventsWritten(value));
    } catch (error) {
      if (kind === 'contested' && isLedgerError(error) && REFUSED.has(error.code)) {
        count(kind, 0);
        report.refused.push({ code: error.code, message: error.message });
      } else {
        report.unexpected.push(String(isLedgerError(error) ? `${error.code}: ${error.message}` : (error?.stack ?? error)));
        return;
      }
    }
    step = sequence.next(value);
  }
}

// Loaded and connected: say so, and wait for the parent's `go` (sent once all eight are here) on stdin.
process.stdout.write('ready\n');
await new Promise((resolve) => {
  let input = '';
  process.stdin.on('data', (d) => {
    input += d.toString();
    if (input.includes('go\n')) {
      process.stdin.pause();
      resolve();
    }
  });
});
// Two lanes at once on one ledger instance: the contested starts and the own dates' steps
// interleave inside this process as well as with the seven other processes.
await Promise.all([
  (async () => {
    for (const date of plan.contested) await drive('contested', contestedDate(date));
  })(),
  (async () => {
    for (const date of plan.own) await drive('own', ownDate(date));
  })(),
]);
await ledger.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
process.exitCode = report.unexpected.length === 0 ? 0 : 1;
