// The hints of a refused start lead to the fix: a date that is not a slot names the slot(s) of that day (not a
// manual run, whose success raises the watermark for good and leaves the slot missing), and a mistyped pipeline
// name gets "did you mean", as a mistyped command does.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, eventCount, tempDir } from '../support/run-cli.js';

const NOW = ['--now', '2026-12-10T00:00:00Z'];

function ledgerWith(...defines: string[][]): (args: string[]) => ReturnType<typeof cli> {
  const db = join(tempDir(), 'ledger.db');
  const run = (args: string[]) => cli(['--db', db, ...NOW, ...args]);
  for (const define of defines) expect(run(['define', ...define]).code).toBe(0);
  return run;
}

describe('start of a date that is not a slot', () => {
  test('when a 06:00 pipeline is started for a day then the refusal names that day\'s slot and what a manual run would do, and writes nothing', () => {
    const run = ledgerWith(['nightly', '--schedule', '0 6 * * *', '--start', '2026-12-01', '--tz', 'Europe/Berlin']);
    const r = run(['start', 'nightly', '2026-12-03']);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('its nearest slot is 2026-12-03T06:00:00+01:00: start that (`runledger start nightly 2026-12-03T06:00:00+01:00`)');
    expect(r.stderr).toContain('raises the watermark for good while the scheduled slot stays missing');
    expect(run(['state', 'nightly', '--json']).stdout).not.toContain('"running"');
    // The suggested command works.
    expect(run(['start', 'nightly', '2026-12-03T06:00:00+01:00']).code).toBe(0);
  });

  test('when a twice-daily pipeline is started for a day then both of its slots are named', () => {
    const run = ledgerWith(['twice', '--schedule', '0 6,18 * * *', '--start', '2026-12-01', '--tz', 'Europe/Berlin']);
    const r = run(['start', 'twice', '2026-12-03']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('its nearest slots are 2026-12-03T06:00:00+01:00, 2026-12-03T18:00:00+01:00: start one of them');
  });

  test('when an instant between two hourly slots is started then the slots on either side are named', () => {
    const run = ledgerWith(['hourly', '--schedule', '@hourly', '--start', '2026-12-01', '--tz', 'Europe/Berlin']);
    const r = run(['start', 'hourly', '2026-12-03T07:30:00+01:00']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('its nearest slots are 2026-12-03T07:00:00+01:00, 2026-12-03T08:00:00+01:00');
  });
});

describe('a mistyped pipeline name', () => {
  test('when the name is one letter off a defined pipeline then the error says "did you mean", not "define it", exit 4', () => {
    const db = join(tempDir(), 'ledger.db');
    expect(cli(['--db', db, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02']).code).toBe(0);
    const before = eventCount(db);
    const r = cli(['--db', db, ...NOW, 'start', 'etl_order', '2026-11-03']);
    expect(r.code).toBe(4);
    expect(r.stderr.trim()).toBe("runledger: no pipeline 'etl_order' in this ledger; did you mean etl_orders? (`runledger pipelines` lists them)");
    expect(eventCount(db)).toBe(before);
    expect(cli(['--db', db, 'state', 'etl_ordres']).stderr).toContain('did you mean etl_orders?');
  });

  test('when no defined name is near then the error still says how to define it', () => {
    const run = ledgerWith(['etl_orders', '--schedule', '@daily', '--start', '2026-11-02']);
    expect(run(['start', 'billing', '2026-11-03']).stderr).toContain('define it with `runledger define billing');
  });
});
