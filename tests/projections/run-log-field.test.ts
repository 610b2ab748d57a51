import { describe, expect, test } from 'vitest';
import { canonicalJson } from '../../events/canonical-json.js';
import { LedgerEvent } from '../../events/ledger-event.js';
import { decideCompletion, type CompletionCommand } from '../../projections/decide-completion.js';
import { evolve, initialState } from '../../projections/pipeline-state.js';
import { recordAll } from '../support/event-factory.js';

// The outcome events' optional `log` (the runner's log file: path and sha256) is backward compatible: events
// recorded before it validate unchanged, and an outcome without a log is the same event, byte for byte.

const P = 'etl';
const D = '2026-11-02';
const ref = { pipeline: P, date: D, runId: 'A' };
const LOG = { path: '/var/log/runledger/etl/2026-11-02_A.log', sha256: 'a'.repeat(64) };

const oldEvents = [
  { type: 'RunSucceeded', schemaVersion: 1, data: { ...ref, metrics: { rows: 42 }, outputs: [] } },
  { type: 'RunFailed', schemaVersion: 1, data: { ...ref, error: 'boom', code: 'exit:1' } },
  { type: 'RunInterrupted', schemaVersion: 1, data: { ...ref, by: 'SIGINT', message: 'stopped' } },
];

const running = recordAll([
  {
    type: 'RunStarted',
    schemaVersion: 1,
    data: { ...ref, attempt: 1, runType: 'backfill', logicalDate: `${D}T00:00:00Z`, dataInterval: { start: `${D}T00:00:00Z`, end: `${D}T23:59:59Z` }, runAfter: `${D}T23:59:59Z`, leaseExpiresAt: '2026-11-05T13:00:00.000Z', force: false, offSchedule: false, takeoverOf: null },
  },
]).reduce(evolve, initialState(P));

describe('the log field of outcome events', () => {
  test.each(oldEvents)('a $type recorded without a log still validates, and its canonical form (what the chain hashes) is unchanged', (event) => {
    const parsed = LedgerEvent.safeParse(event);
    expect(parsed.success).toBe(true);
    expect(canonicalJson(parsed.data)).toBe(canonicalJson(event));
  });

  test.each(oldEvents)('a $type with a log keeps it; a sha256 that is not 64 hex digits is rejected', (event) => {
    expect(LedgerEvent.safeParse({ ...event, data: { ...event.data, log: LOG } }).data).toEqual({ ...event, data: { ...event.data, log: LOG } });
    expect(LedgerEvent.safeParse({ ...event, data: { ...event.data, log: { ...LOG, sha256: 'abc' } } }).success).toBe(false);
  });

  const commands: Array<{ label: string; cmd: CompletionCommand; type: string }> = [
    { label: 'success', cmd: { kind: 'succeed', runId: 'A', date: D, metrics: {}, outputs: [] }, type: 'RunSucceeded' },
    { label: 'failure', cmd: { kind: 'fail', runId: 'A', date: D, error: 'boom', code: null }, type: 'RunFailed' },
    { label: 'interruption', cmd: { kind: 'interrupt', runId: 'A', date: D, by: 'SIGTERM', message: '' }, type: 'RunInterrupted' },
  ];
  test.each(commands)('a $label with a log records it; without one the event has no log key at all', ({ cmd, type }) => {
    const withLog = decideCompletion(running, { ...cmd, log: LOG } as CompletionCommand, { nowMs: 0 });
    const without = decideCompletion(running, cmd, { nowMs: 0 });
    if (!withLog.ok || !without.ok) throw new Error('refused');
    expect(withLog.value.events[0]?.type).toBe(type);
    expect((withLog.value.events[0]?.data as { log?: unknown }).log).toEqual(LOG);
    expect('log' in (without.value.events[0]?.data ?? {})).toBe(false);
  });
});
