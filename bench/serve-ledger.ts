/**
 * `runledger serve` for the bench, in a child process of its own: the same server (`createServer`) on the
 * same `openLedger`, with a clock that starts at the bench ledgers' "now" and advances in real time, so the
 * fixture's dates are due as the bench built them and answers kept per second still expire every second
 * (`RUNLEDGER_NOW` would stop the clock). `node dist/bench/serve-ledger.js <db> <write token>` prints
 * `serving <address>` on stderr and serves until SIGTERM.
 */
import { openLedger } from '../src/open-ledger.js';
import { LOOPBACK_NAMES } from '../src/serve/check-host.js';
import { parseWriteToken } from '../src/serve/check-token.js';
import { createServer } from '../src/serve/create-server.js';
import { BENCH_NOW } from './ledger-fixture.js';

const [db, token] = process.argv.slice(2);
if (db === undefined || token === undefined) throw new Error('usage: serve-ledger.js <db> <write token>');
const started = Date.now();
const clock = () => BENCH_NOW + (Date.now() - started);
const ledger = await openLedger({ db, create: false, clock });
const app = await createServer({ ledger, clock, writeTokens: [parseWriteToken(token)], allowedHosts: [...LOOPBACK_NAMES] });
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stderr.write(`runledger: serving ${address}\n`);
process.once('SIGTERM', () => {
  void app
    .close()
    .then(() => ledger.close())
    .then(() => process.exit(0));
});
