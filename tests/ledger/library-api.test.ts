import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { LEDGER_ERROR_CODES, LedgerError, openLedger, type LedgerErrorCode } from '../../src/index.js';
import { tempDir } from '../support/run-cli.js';

// The library as a TypeScript user meets it: advice in its own terms, a closed set of error codes, `await using`.

const NOW = Date.parse('2026-11-05T01:00:00+07:00');

async function ledgerWithPipeline() {
  const db = join(tempDir(), 'l.db');
  const ledger = await openLedger({ db, clock: () => NOW, actor: 'test' });
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
  return { db, ledger };
}

describe('refusals give advice a library caller can follow', () => {
  test('a date that already succeeded names force: true beside --force', async () => {
    const { ledger } = await ledgerWithPipeline();
    const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
    await ledger.succeed({ runId });
    await expect(ledger.start({ pipeline: 'etl', date: '2026-11-02' })).rejects.toThrow(/force: true/);
    await ledger.close();
  });

  test("a date not due yet names the library's real field, runType: 'manual', beside --type manual", async () => {
    const { ledger } = await ledgerWithPipeline();
    await expect(ledger.start({ pipeline: 'etl', date: '2026-11-05' })).rejects.toThrow(/--type manual \(library: runType: 'manual'\)/);
    await ledger.close();
  });
});

describe('LedgerErrorCode is a closed union', () => {
  test('a code that does not exist does not type-check (npm run check compiles this file)', () => {
    // @ts-expect-error 'input.bogus' is not a runledger error code; with an open template type this compiled.
    const bogus: LedgerErrorCode = 'input.bogus';
    expect(LEDGER_ERROR_CODES).not.toContain(bogus);
  });

  test('the list is unique and each code carries the exit code its prefix promises', () => {
    expect(new Set(LEDGER_ERROR_CODES).size).toBe(LEDGER_ERROR_CODES.length);
    const exitByPrefix: Record<string, number> = { input: 2, ledger: 3, notFound: 4, integrity: 5, store: 1, consumer: 1, output: 1 };
    for (const code of LEDGER_ERROR_CODES) {
      expect(new LedgerError(code, 'x').exitCode, code).toBe(exitByPrefix[code.split('.')[0] as string]);
    }
  });
});

describe('Ledger supports await using', () => {
  test('the ledger is closed when the block ends, even on a throw', async () => {
    const { db, ledger: first } = await ledgerWithPipeline();
    await first.close();
    let escaped: Awaited<ReturnType<typeof openLedger>> | undefined;
    await expect(
      (async () => {
        await using ledger = await openLedger({ db, clock: () => NOW, actor: 'test' });
        escaped = ledger;
        throw new Error('boom');
      })(),
    ).rejects.toThrow('boom');
    // A closed ledger refuses work; an open one would answer.
    await expect(escaped?.state({ pipeline: 'etl' })).rejects.toThrow();
    expect(typeof escaped?.[Symbol.asyncDispose]).toBe('function');
  });
});

describe('the package entry exports the public API only', () => {
  test('the runner internals, the deprecated free functions, the demo and the stores are not exported', async () => {
    const api = await import('../../src/index.js');
    // A new export is a promise to every user: add it here on purpose, with its docs.
    expect(Object.keys(api).sort()).toEqual([
      'ExitCode', 'LEDGER_ERROR_CODES', 'Ledger', 'LedgerError', 'NOTIFY_KINDS', 'checkStatus', 'collectMetrics', 'commandDelivery', 'commandTask',
      'compareWorstFirst', 'createTimetable', 'firstBlocking', 'functionTask', 'intervalsOverlap', 'isLedgerError', 'lintTasks', 'openLedger',
      'pipelineStatus', 'readStatus', 'renderTemplate', 'runFleet', 'runNotifier', 'upstreamSlots', 'webhookDelivery',
    ]);
  });
});
