// Pools and priorities (issue 39, item 5) with the real binary: two schedulers on one ledger never run more
// of a pool's runs at once than its size (read from the commands' own start and end lines), and when places
// are short the pipeline of higher priority starts first, then the oldest date.
import { describe, expect, test, vi } from 'vitest';
import { cli, cliAsync, tempDir } from './cli-helpers.js';
import { loggedCommand, logLines, mostAtOnce } from './run-log-lines.js';

vi.setConfig({ testTimeout: 120_000 });

/** Three UTC days due: 2026-11-01 .. 2026-11-03. */
const NOW = '2026-11-04T01:00:00Z';

const LOGGED = loggedCommand(0.2);

describe('scheduler --pool', () => {
  test('when two schedulers share a ledger and a pool of 2 then never more than 2 of its runs run at once, and every date runs once', async () => {
    const dir = tempDir();
    const env = { RUNLEDGER_NOW: NOW };
    for (const pipeline of ['a', 'b', 'c']) {
      const r = cli(dir, ['define', pipeline, '--schedule', '@daily', '--start', '2026-11-01', '--max-active-runs', '3', '--pool', 'warehouse', '--command', '--', ...LOGGED], env);
      expect(r.code, r.stderr).toBe(0);
    }
    const args = ['scheduler', '--once', '--no-logs', '--json', '--parallel', '8', '--pool', 'warehouse=2'];
    const [one, two] = await Promise.all([cliAsync(dir, args, env).done, cliAsync(dir, args, env).done]);
    expect(one.code, one.stderr).toBe(0);
    expect(two.code, two.stderr).toBe(0);

    const lines = logLines(dir);
    const starts = lines.filter((l) => l.what === 'start').map((l) => l.run);
    // Nine dates, each started once (by one scheduler or the other) and ended.
    expect(starts).toHaveLength(9);
    expect(new Set(starts).size).toBe(9);
    expect(lines.filter((l) => l.what === 'end')).toHaveLength(9);
    expect(mostAtOnce(lines)).toBeLessThanOrEqual(2);
    for (const pipeline of ['a', 'b', 'c']) {
      const state = JSON.parse(cli(dir, ['--now', NOW, 'state', pipeline, '--json']).stdout) as { dates: Array<{ status: string }> };
      expect(state.dates.map((d) => d.status)).toEqual(['success', 'success', 'success']);
    }
    // Each start recorded the pool and its size, so a reader of the ledger can tell a full pool.
    const log = JSON.parse(cli(dir, ['--now', NOW, 'log', '--json']).stdout) as { events: Array<{ type: string; data: { pool?: unknown } }> };
    const started = log.events.filter((e) => e.type === 'RunStarted');
    expect(started.map((e) => e.data.pool)).toEqual(started.map(() => ({ name: 'warehouse', size: 2 })));
  });

  test('when places are short then the pipeline of higher priority starts first, then the oldest date', async () => {
    const dir = tempDir();
    const env = { RUNLEDGER_NOW: NOW };
    // `low` is defined first and has the older dates: only its priority puts it last.
    const low = cli(dir, ['define', 'low', '--schedule', '@daily', '--start', '2026-11-01', '--max-active-runs', '3', '--pool', 'warehouse', '--command', '--', ...LOGGED], env);
    const high = cli(dir, ['define', 'high', '--schedule', '@daily', '--start', '2026-11-02', '--max-active-runs', '3', '--pool', 'warehouse', '--priority', '10', '--command', '--', ...LOGGED], env);
    expect(low.code, low.stderr).toBe(0);
    expect(high.code, high.stderr).toBe(0);
    expect(high.stdout).toContain('pool warehouse, priority 10');
    const r = await cliAsync(dir, ['scheduler', '--once', '--no-logs', '--pool', 'warehouse=1'], env).done;
    expect(r.code, r.stderr).toBe(0);
    const starts = logLines(dir).filter((l) => l.what === 'start').map((l) => l.run);
    expect(starts).toEqual(['high 2026-11-02', 'high 2026-11-03', 'low 2026-11-01', 'low 2026-11-02', 'low 2026-11-03']);
  });

  test('when --pool is not NAME=N then it exits 2 and runs nothing', () => {
    const dir = tempDir();
    const env = { RUNLEDGER_NOW: NOW };
    expect(cli(dir, ['define', 'a', '--schedule', '@daily', '--start', '2026-11-01', '--pool', 'warehouse', '--command', '--', 'true'], env).code).toBe(0);
    for (const bad of ['warehouse', 'warehouse=0', 'Warehouse=2', 'warehouse=two']) {
      const r = cli(dir, ['scheduler', '--once', '--no-logs', '--pool', bad], env);
      expect(r.code, bad).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const log = JSON.parse(cli(dir, ['--now', NOW, 'log', '--json']).stdout) as { events: Array<{ type: string }> };
    expect(log.events.filter((e) => e.type === 'RunStarted')).toEqual([]);
  });
});
