import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { openLedger, type Ledger } from '../../src/open-ledger.js';
import { tempDir } from '../support/run-cli.js';

const NOW = Date.parse('2026-11-05T01:00:00+07:00');

async function ledgerWithRun(): Promise<{ ledger: Ledger; runId: string; events: () => Promise<number> }> {
  const ledger = await openLedger({ db: join(tempDir(), 'l.db'), clock: () => NOW, actor: 'test' });
  await ledger.define({ pipeline: 'etl', schedule: '@daily', start: '2026-11-02', timezone: 'Asia/Jakarta' });
  const { runId } = await ledger.start({ pipeline: 'etl', date: '2026-11-02' });
  return { ledger, runId, events: async () => (await ledger.log()).events.length };
}

/** The library refuses what the CLI's parsers refuse, as input errors that write nothing. */
describe('library input is checked like CLI input', () => {
  test.each([
    { label: 'a lease of 1e20 ms at define', call: (l: Ledger) => l.define({ pipeline: 'etl', leaseMs: 1e20 }), code: 'input.invalidDuration' },
    { label: 'a fractional lease at start', call: (l: Ledger) => l.start({ pipeline: 'etl', date: '2026-11-03', leaseMs: 1.5 }), code: 'input.invalidDuration' },
    { label: 'a negative lease at heartbeat', call: (l: Ledger, runId: string) => l.heartbeat({ runId, leaseMs: -5 }), code: 'input.invalidDuration' },
    { label: 'Infinity in metrics', call: (l: Ledger, runId: string) => l.succeed({ runId, metrics: { rows: Number.POSITIVE_INFINITY } }), code: 'input.invalidMetrics' },
    { label: 'metrics that are an array', call: (l: Ledger, runId: string) => l.succeed({ runId, metrics: [1] as unknown as Record<string, unknown> }), code: 'input.invalidMetrics' },
    { label: 'a failure without a message', call: (l: Ledger, runId: string) => l.fail({ runId, error: '  ' }), code: 'input.emptyError' },
    { label: 'a log whose sha256 is not 64 hex digits', call: (l: Ledger, runId: string) => l.succeed({ runId, log: { path: '/tmp/run.log', sha256: 'abc' } }), code: 'input.invalidRunLog' },
    { label: "an upstream given as the CLI's string", call: (l: Ledger) => l.define({ pipeline: 'daily', schedule: '@daily', start: '2026-11-02', upstreams: ['etl'] as never }), code: 'input.invalidUpstream' },
    { label: 'a log without a path', call: (l: Ledger, runId: string) => l.fail({ runId, error: 'boom', log: { path: '', sha256: 'a'.repeat(64) } }), code: 'input.invalidRunLog' },
  ])('$label is refused with exit 2 and nothing written', async ({ call, code }) => {
    const { ledger, runId, events } = await ledgerWithRun();
    const before = await events();
    await expect(call(ledger, runId)).rejects.toMatchObject({ code, exitCode: 2 });
    expect(await events()).toBe(before);
    await ledger.close();
  });

  test('a range of more than 200,000 slots is refused instead of listed for minutes', async () => {
    const ledger = await openLedger({ db: join(tempDir(), 'l.db'), clock: () => NOW, actor: 'test' });
    await ledger.define({ pipeline: 'typo', schedule: '@hourly', start: '0206-11-02' });
    await expect(ledger.pending({ pipeline: 'typo' })).rejects.toMatchObject({ code: 'input.rangeTooLarge' });
    const narrow = await ledger.pending({ pipeline: 'typo', from: '2026-11-04T00:00:00Z', to: '2026-11-04T03:00:00Z' });
    expect(narrow.pending).toHaveLength(4);
    await ledger.close();
  });

  test('a task that throws an empty error still fails its run, with a message', async () => {
    const { ledger } = await ledgerWithRun();
    await expect(ledger.withRun('etl', '2026-11-03', async () => { throw new Error(''); })).rejects.toThrow();
    const state = await ledger.state({ pipeline: 'etl' });
    expect(state.dates.find((d) => d.date === '2026-11-03')).toMatchObject({ status: 'failed', error: 'Error thrown without a message' });
    await ledger.close();
  });
});
