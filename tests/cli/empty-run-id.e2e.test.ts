// `succeed "$RUN"` with RUN unset: the run id is empty, which is the caller's mistake (exit 2), not a missing run.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, eventCount, tempDir } from '../support/run-cli.js';

describe('an empty run id', () => {
  test.each([
    { label: 'succeed', args: ['succeed', ''] },
    { label: 'fail', args: ['fail', ' ', '--error', 'boom'] },
    { label: 'heartbeat', args: ['heartbeat', ''] },
    { label: 'task', args: ['task', '', 'load', 'success'] },
  ])('$label of an empty run id says the id is empty, exit 2, nothing written', ({ args }) => {
    const db = join(tempDir(), 'ledger.db');
    expect(cli(['--db', db, 'define', 'p', '--schedule', '@daily', '--start', '2026-11-02']).code).toBe(0);
    const before = eventCount(db);
    const r = cli(['--db', db, ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^runledger: the run id is empty; pass the id `start` printed/);
    expect(eventCount(db)).toBe(before);
  });
});
