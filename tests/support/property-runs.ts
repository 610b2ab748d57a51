/**
 * fast-check options for a property that costs real time per run (a ledger per run, a 10,000-row chain): `byDefault`
 * runs in `npm test`, times RUNLEDGER_TEST_RUNS_SCALE when set (e.g. `RUNLEDGER_TEST_RUNS_SCALE=10 npx vitest run
 * tests/store` before a release), and RUNLEDGER_TEST_SEED to replay the run fast-check printed with a failure.
 *
 * @example
 * await fc.assert(fc.asyncProperty(steps, check), propertyRuns(25));
 */
export function propertyRuns(byDefault: number): { numRuns: number; seed?: number } {
  const scale = Number(process.env['RUNLEDGER_TEST_RUNS_SCALE'] ?? '');
  const seed = Number(process.env['RUNLEDGER_TEST_SEED'] ?? '');
  const numRuns = Number.isFinite(scale) && scale > 0 ? Math.max(1, Math.round(byDefault * scale)) : byDefault;
  return { numRuns, ...(process.env['RUNLEDGER_TEST_SEED'] && Number.isInteger(seed) ? { seed } : {}) };
}
