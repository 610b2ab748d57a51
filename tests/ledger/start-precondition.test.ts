import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openLedger } from '../../src/open-ledger.js';
import { tempDir } from '../support/run-cli.js';

const NOW = Date.parse('2026-11-05T01:00:00+07:00');

describe('start with expectAttempts: a runner claims only what it decided on', () => {
  test('when another runner started the date since it was read then the start is refused and nothing is written', async () => {
    const ledger = await openLedger({ db: join(tempDir(), 'l.db'), clock: () => NOW, actor: 'test' });
    await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
    const first = await ledger.start({ pipeline: 'etl', date: '2026-11-02', expectAttempts: 0 });
    await ledger.succeed({ runId: first.runId });
    // A second runner read the date before the first run, when it had 0 attempts, and wants to reprocess it.
    await expect(ledger.start({ pipeline: 'etl', date: '2026-11-02', force: true, expectAttempts: 0 })).rejects.toMatchObject({ code: 'ledger.changed', exitCode: 3 });
    expect((await ledger.runs({ pipeline: 'etl' })).runs).toHaveLength(1);
    const again = await ledger.start({ pipeline: 'etl', date: '2026-11-02', force: true, expectAttempts: 1 });
    expect(again.attempt).toBe(2);
    await ledger.close();
  });
});
