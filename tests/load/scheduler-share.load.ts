import { afterAll, describe, expect, test } from 'vitest';
import { pgSchemas, pgSkipMessage, TEST_PG_URL } from '../support/pg.js';
import { runSharedSchedulers } from '../runner/shared-schedulers.js';

/**
 * Issue 39's acceptance at full length: three schedulers on one PostgreSQL ledger, 20 random SIGKILLs and
 * restarts over three minutes, a backlog of a three-pipeline chain. The default suite runs a bounded version
 * (tests/runner/scheduler-share.e2e.test.ts); this one takes minutes, so it lives with the load tests.
 */
const schemas = TEST_PG_URL === undefined ? undefined : pgSchemas(TEST_PG_URL);
afterAll(async () => schemas?.dropAll());

describe.skipIf(schemas === undefined)(schemas === undefined ? pgSkipMessage('three schedulers, 20 kills') : 'three schedulers on one PostgreSQL ledger, 20 kills', () => {
  test('when three schedulers are killed 20 times in three minutes then every date ran once to success, without overlap, and verify passes', async () => {
    const seed = Number(process.env['RUNLEDGER_TEST_SEED'] ?? Date.now() % 100_000);
    const db = await (schemas as NonNullable<typeof schemas>).fresh();
    const result = await runSharedSchedulers({ db, schedulers: 3, kills: 20, windowMs: 170_000, dates: 48, workSeconds: 2, seed });
    expect(result.kills).toBe(20);
    expect(result.abandoned, `seed ${seed}`).toBeGreaterThan(0);
  }, 600_000);
});
