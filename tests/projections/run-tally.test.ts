import { expect, test } from 'vitest';
import type { RunRecord } from '../../projections/run-history.js';
import { copyTally, tallyRun, type RunTally } from '../../projections/views/run-tally.js';

const run = (status: RunRecord['status'], seconds: number): RunRecord => ({
  runId: `R-${status}-${seconds}`,
  date: '2026-11-01',
  attempt: 1,
  runType: 'scheduled',
  status,
  logicalDate: '2026-11-01T00:00:00.000Z',
  dataInterval: { start: '2026-11-01T00:00:00.000Z', end: '2026-11-02T00:00:00.000Z' },
  startedAt: '2026-11-02T00:00:00.000Z',
  finishedAt: new Date(Date.parse('2026-11-02T00:00:00.000Z') + seconds * 1000).toISOString(),
  leaseExpiresAt: '2026-11-02T01:00:00.000Z',
  actor: 'test',
  forced: false,
  offSchedule: false,
  metrics: status === 'success' ? {} : null,
  error: status === 'failed' ? 'boom' : null,
});

test('a copied tally equals its original, and counting runs into the copy leaves the original as it was', () => {
  const tally: RunTally = {};
  tallyRun(tally, run('success', 3), 1);
  tallyRun(tally, run('failed', 700), 1);
  const before = JSON.stringify(tally);
  const copy = copyTally(tally);
  expect(copy).toEqual(tally);
  expect(JSON.stringify(copy)).toBe(before);
  tallyRun(copy, run('success', 3), -1);
  tallyRun(copy, run('failed', 2), 1);
  expect(JSON.stringify(tally)).toBe(before);
  expect(copy.success).toBeUndefined();
  expect(copy.failed?.runs).toBe(2);
  expect(tally.failed?.le).not.toBe(copy.failed?.le);
});
