// The events of run control (RunMarked, RetryScheduled, and RunCleared of a skipped date) validate, hash, export,
// import, replay and export to OpenLineage like every other event.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { checkEventSchema } from '../../events/decode-event.js';
import { currentSchemaVersion } from '../../events/event-types.js';
import type { EventType } from '../../events/ledger-event.js';
import { openLedger } from '../../src/open-ledger.js';
import { NOW, rawRows, run, tempDir } from './cli-session.js';

describe('run-control events in the audit trail', () => {
  let dir: string;
  let db: string;
  let exported: string;

  beforeAll(async () => {
    dir = tempDir();
    db = join(dir, 'ledger.db');
    const clock = { now: Date.parse(NOW) };
    const ledger = await openLedger({ db, clock: () => clock.now, actor: 'alice' });
    await ledger.define({ pipeline: 'etl_orders', schedule: '@daily', start: '2026-11-01', timezone: 'Asia/Jakarta', retries: 2, retryDelay: '1m', dependsOnPast: true, sla: '2h', timeout: '1h' });
    let tries = 0;
    await ledger.backfill(
      { pipeline: 'etl_orders', from: '2026-11-01', to: '2026-11-02', sleep: async (ms) => void (clock.now += ms) },
      (run) => {
        if (run.date === '2026-11-02' && ++tries < 2) throw new Error('late file');
        return { rows: 1 };
      },
    );
    await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-11-03'], skipped: true, reason: 'holiday' });
    await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-11-04'], success: true, reason: 'loaded by hand' });
    await ledger.clear({ pipeline: 'etl_orders', dates: ['2026-11-03'], reason: 'data came after all' });
    await ledger.mark({ pipeline: 'etl_orders', dates: ['2026-11-03'], skipped: true, reason: 'holiday after all' });
    await ledger.close();
    exported = join(dir, 'ledger.jsonl');
    expect((await run(['--db', db, 'export', '--out', exported])).code).toBe(0);
  });

  test('every event type is in the ledger, and each passes its schema', async () => {
    const rows = await rawRows(db);
    const types = new Set<string>();
    for (const row of rows) {
      const event = JSON.parse(row.payload) as Record<string, unknown> & { type: EventType; schemaVersion: number; data: Record<string, unknown> };
      types.add(event.type);
      expect(checkEventSchema({ ...event, prevHash: row.prevHash, hash: row.hash }, event.type, { schemaVersion: event.schemaVersion, data: event.data })).toBeNull();
    }
    for (const type of ['RunMarked', 'RetryScheduled', 'RunCleared', 'RunFailed', 'RunSucceeded', 'RunStarted', 'PipelineDefined'] satisfies EventType[]) expect(types).toContain(type);
    expect(Object.keys(currentSchemaVersion)).toEqual(expect.arrayContaining(['RunMarked', 'RetryScheduled']));
  });

  test('the chain verifies: each new event is hashed like the others', async () => {
    const r = await run(['--db', db, 'verify', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, firstBadPosition: null });
  });

  test('import gives the same bytes and the same state; replay of the export prints that state', async () => {
    const target = join(tempDir(), 'copy.db');
    expect((await run(['--db', target, 'import', exported])).code).toBe(0);
    expect(await rawRows(target)).toEqual(await rawRows(db));
    const state = await run(['--db', db, 'state', 'etl_orders', '--json']);
    expect((await run(['--db', target, 'state', 'etl_orders', '--json'])).stdout).toBe(state.stdout);
    expect((await run(['replay', exported, '--json'])).stdout).toBe(state.stdout);
    const dates = (JSON.parse(state.stdout) as { dates: Array<{ date: string; status: string; mark?: { reason: string }; retry?: unknown }> }).dates;
    expect(dates.slice(0, 4).map((d) => [d.date, d.status, d.mark?.reason ?? null])).toEqual([
      ['2026-11-01', 'success', null],
      ['2026-11-02', 'success', null],
      ['2026-11-03', 'skipped', 'holiday after all'],
      ['2026-11-04', 'success', 'loaded by hand'],
    ]);
    expect(dates[1]).toMatchObject({ attempt: 2, retry: { attempt: 2, of: 3, nextAt: null } });
  });

  test('a tampered mark is caught by verify, like any event', async () => {
    const lines = readFileSync(exported, 'utf8').split('\n');
    const at = lines.findIndex((l) => l.includes('"RunMarked"'));
    expect(at).toBeGreaterThan(0);
    const target = join(tempDir(), 'bad.db');
    const bad = join(tempDir(), 'bad.jsonl');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(bad, lines.map((l, i) => (i === at ? l.replace('"skipped"', '"success"') : l)).join('\n'));
    const r = await run(['--db', target, 'import', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/hash does not match/);
  });

  test('the OpenLineage export carries the runs (a mark is no run), the failed attempt as FAIL', async () => {
    const r = await run(['--db', db, 'export', '--format', 'openlineage', '--pipeline', 'etl_orders']);
    expect(r.code, r.stderr).toBe(0);
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { eventType: string });
    expect(events.map((e) => e.eventType)).toEqual(['START', 'COMPLETE', 'START', 'FAIL', 'START', 'COMPLETE']);
  });
});
