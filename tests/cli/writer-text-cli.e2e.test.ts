import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, eventCount, tempDir } from '../support/run-cli.js';

// The CLI's own inputs: a lone surrogate in a metrics file and a producer's time far from the clock are exit 2,
// one line naming the field, nothing written; --max-clock-skew widens the window.

const NOW = '2026-11-05T01:00:00Z';

describe('writers text and clocks on the CLI', () => {
  test('--metrics @file with a lone surrogate, and --at in 2999, are exit 2 naming the field; nothing is written', () => {
    const dir = tempDir();
    const db = join(dir, 'l.db');
    const run = (...args: string[]) => cli(['--db', db, '--now', NOW, ...args]);
    expect(run('define', 'p', '--schedule', '@daily', '--start', '2026-11-02').code).toBe(0);
    const runId = run('start', 'p', '2026-11-02').stdout.trim();
    const events = eventCount(db);
    writeFileSync(join(dir, 'm.json'), '{"rows": 3, "note": "x\\ud800y"}');
    const metrics = run('succeed', runId, '--metrics', `@${join(dir, 'm.json')}`);
    expect(metrics.code).toBe(2);
    expect(metrics.stderr).toMatch(/^runledger: metrics\.note holds a lone UTF-16 surrogate at character 1, .*\n$/);
    const future = run('succeed', runId, '--at', '2999-01-01T00:00:00Z');
    expect(future.code).toBe(2);
    expect(future.stderr).toMatch(/^runledger: at 2999-01-01T00:00:00\+00:00 is \d+d ahead of the ledger's clock .*--max-clock-skew.*\n$/);
    expect(eventCount(db)).toBe(events);
    expect(run('--max-clock-skew', '2h', 'succeed', runId, '--at', '2026-11-05T02:00:00Z').code).toBe(0);
  });
});
