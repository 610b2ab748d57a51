// Runs before every test file (vitest.config.ts `setupFiles`). The suite must pass in any shell: a user who followed
// the README may have RUNLEDGER_DB, RUNLEDGER_NOW or RUNLEDGER_ACTOR exported, and every spawned CLI inherits
// process.env, so a test relying on the defaults would read another ledger or another clock. Tests set what they
// need. RUNLEDGER_TEST_* (the PostgreSQL URL of the suites) is the suite's own setting and stays.
for (const key of Object.keys(process.env)) {
  if (key.startsWith('RUNLEDGER_') && !key.startsWith('RUNLEDGER_TEST_')) delete process.env[key];
}
