// Issue 39: three schedulers on one PostgreSQL ledger, SIGKILLed at random and started again, share the backlog of a
// three-pipeline chain: every date succeeds exactly once, no two attempts of a date overlap, the pipelines'
// max-active-runs hold across the schedulers, and `verify` passes. Bounded here (8 kills in about 30 s, short
// leases); the load test (`npm run test:load`) runs 20 kills over three minutes.
import { afterAll, describe, expect, test, vi } from 'vitest';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { runSharedSchedulers } from './shared-schedulers.js';

// Above the sum of the run's own bounds (a kill window of about 30 s with 10 s for each of the 8 kills to be reaped,
// two minutes for every date, 30 s for the health rows, a minute for the stops: about 5.5 minutes, and the CLI calls
// between them on a loaded machine), so a run that does not finish fails with its own message (the ledger's status
// and each scheduler's last lines), not with the test's timeout. A CLI call that hangs is bounded by neither.
vi.setConfig({ testTimeout: 420_000 });

const schemas = TEST_PG_URL === undefined ? undefined : pgSchemas(TEST_PG_URL);
afterAll(async () => schemas?.dropAll());

describe.skipIf(schemas === undefined)(schemas === undefined ? pgSkipMessage('three schedulers on one ledger') : 'three schedulers on one PostgreSQL ledger', () => {
  test('when three schedulers are killed 8 times at random and restarted then every date of the chain ran once to success, without overlap, and verify passes', async () => {
    const seed = Number(process.env['RUNLEDGER_TEST_SEED'] ?? Date.now() % 100_000);
    const db = await (schemas as NonNullable<typeof schemas>).fresh();
    const result = await runSharedSchedulers({ db, schedulers: 3, kills: 8, windowMs: 30_000, dates: 12, workSeconds: 1, seed });
    expect(result.kills).toBe(8);
    // The kills hit runs in flight: some were taken over after their lease (attempt 2 and later).
    expect(result.abandoned, `seed ${seed}`).toBeGreaterThan(0);
  });
});
