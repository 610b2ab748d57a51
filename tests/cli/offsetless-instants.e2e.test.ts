import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, tempDir } from '../support/run-cli.js';

// A date-time without a zone offset: an instant (--now, --as-of, --since) is refused and the message says so; a
// date of a pipeline (start's <date>) is read in the pipeline's zone, as its date keys are, and start says so.

describe('date-times without an offset', () => {
  const db = join(tempDir(), 'l.db');
  const now = ['--db', db, '--now', '2026-11-07T01:00:00+07:00'];
  cli([...now, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-01', '--tz', 'Asia/Bangkok']);

  test('--now and --as-of are refused, exit 2, saying the offset is missing and how to write one', () => {
    const refused = cli(['--db', db, '--now', '2026-11-07T01:00:00', 'state', 'etl_orders']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe("runledger: --now '2026-11-07T01:00:00' has no zone offset, and it is refused rather than read in some zone; add one: 2026-11-07T01:00:00Z for UTC, or e.g. 2026-11-07T01:00:00+07:00\n");
    expect(cli([...now, 'state', 'etl_orders', '--as-of', '2026-11-06T00:00:00']).stderr).toContain("--as-of '2026-11-06T00:00:00' has no zone offset, and it is refused");
  });

  test("start reads a date-time without an offset in the pipeline's zone and says so", () => {
    const r = cli([...now, 'start', 'etl_orders', '2026-11-03T00:00:00']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("runledger: 2026-11-03T00:00:00 has no zone offset, so it was read in etl_orders's time zone: 2026-11-03T00:00:00+07:00");
    expect(cli([...now, 'start', 'etl_orders', '2026-11-04']).stderr).not.toContain('no zone offset');
  });
});
