import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openLedger } from '../../src/open-ledger.js';
import { cli, tempDir } from '../support/run-cli.js';

const NOW = Date.parse('2026-11-05T01:00:00+07:00');

describe('define on an existing pipeline changes only what it is given', () => {
  test.each([
    { label: 'catchup off keeps schedule, zone and start', change: { catchup: false }, diff: ['catchup'] },
    { label: 'a new schedule keeps the zone', change: { schedule: '0 2 * * *' }, diff: ['schedule'] },
    { label: 'a new lease keeps everything else', change: { leaseMs: 600_000 }, diff: ['leaseMs'] },
    { label: 'the same values again record nothing', change: { schedule: '@daily', timezone: 'Asia/Jakarta' }, diff: [] },
  ])('$label', async ({ change, diff }) => {
    const ledger = await openLedger({ db: join(tempDir(), 'l.db'), clock: () => NOW, actor: 'test' });
    await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
    const result = await ledger.define({ pipeline: 'etl', ...change });
    expect(result.changes.map((c) => c.field)).toEqual(diff);
    expect(result.outcome).toBe(diff.length === 0 ? 'unchanged' : 'redefined');
    expect(result.definition).toMatchObject({ timezone: 'Asia/Jakarta', start: '2026-11-02T00:00:00+07:00' });
    await ledger.close();
  });

  test('a first definition without schedule and start is refused, and no ledger file appears', () => {
    const db = join(tempDir(), 'l.db');
    const r = cli(['--db', db, 'define', 'etl', '--no-catchup']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/needs --schedule and --start/);
    expect(cli(['--db', db, 'pipelines']).code).toBe(4);
  });
});
