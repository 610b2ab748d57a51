import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { BIN, cli, eventCount, tempDir, type CliResult } from '../support/run-cli.js';

// A review of the CLI surface: bad input on every command must be one line on stderr with exit 2 (or 4),
// never "unexpected error" (exit 1), and must write nothing.

const NOW = '2026-11-05T01:00:00+07:00';

function session() {
  const dir = tempDir('runledger-cli-review-');
  const db = join(dir, 'ledger.db');
  const env = { RUNLEDGER_DB: db, RUNLEDGER_NOW: NOW };
  const run = (...args: string[]) => cli(args, env);
  const define = (pipeline = 'etl_orders', ...flags: string[]) => {
    const r = run('define', pipeline, '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta', ...flags);
    expect(r.code, r.stderr).toBe(0);
  };
  const start = (date: string, ...flags: string[]) => {
    const r = run('start', 'etl_orders', date, ...flags);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.trim();
  };
  return { dir, db, env, run, define, start };
}

/** One line on stderr, nothing on stdout, the given exit code, and no "unexpected error". */
function expectRefusal(r: CliResult, code: number, message?: RegExp): void {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/unexpected error/);
  expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
  if (message) expect(r.stderr).toMatch(message);
}

describe('numbers too large for a date are bad input, not unexpected errors', () => {
  test('define --lease 99999999999999h is refused (exit 2) and writes nothing; it used to poison every later start', () => {
    const s = session();
    s.define();
    const before = eventCount(s.db);
    expectRefusal(s.run('define', 'etl_orders', '--lease', '99999999999999h'), 2, /--lease/);
    expect(eventCount(s.db)).toBe(before);
    expectRefusal(s.run('start', 'etl_orders', '2026-11-02', '--lease', '99999999999999h'), 2, /--lease/);
    expect(eventCount(s.db)).toBe(before);
    const runId = s.start('2026-11-02');
    expectRefusal(s.run('heartbeat', runId, '--lease', '99999999999999h'), 2, /--lease/);
    expectRefusal(s.run('backfill', 'etl_orders', '--from', '2026-11-03', '--to', '2026-11-03', '--lease', '99999999999999h', '--', 'true'), 2, /--lease/);
    expect(eventCount(s.db)).toBe(before + 1);
  });

  test("define --schedule 'every 99999999d' is refused (exit 2) saying it is too long, and creates no ledger", () => {
    const s = session();
    const r = s.run('define', 'etl_orders', '--schedule', 'every 99999999d', '--start', '2026-11-02');
    expectRefusal(r, 2, /every 99999999d/);
    expect(r.stderr).not.toMatch(/at least/);
    expect(existsSync(s.db)).toBe(false);
  });

  test('a reasonable long lease and a yearly fixed duration still work', () => {
    const s = session();
    s.define('etl_orders', '--lease', '30d');
    expect(s.run('define', 'every_year', '--schedule', 'every 365d', '--start', '2026-01-01').code).toBe(0);
    expect(s.run('pending', 'every_year', '--json').code).toBe(0);
  });
});

describe('metrics JSON that JSON cannot hold', () => {
  test("succeed --metrics '{\"rows\": 1e999}' (Infinity) is refused with exit 2 and records nothing", () => {
    const s = session();
    s.define();
    const runId = s.start('2026-11-02');
    const before = eventCount(s.db);
    expectRefusal(s.run('succeed', runId, '--metrics', '{"rows": 1e999}'), 2, /--metrics/);
    expectRefusal(s.run('succeed', runId, '--metrics', '{"nested": {"x": [1, -1e400]}}'), 2, /--metrics/);
    expect(eventCount(s.db)).toBe(before);
    expect(s.run('succeed', runId, '--metrics', '{"rows": 1e300}').code).toBe(0);
  });
});

describe('--db paths that cannot hold a ledger', () => {
  test('define and import with --db in a missing directory: one line, not exit 1, and no directory created', () => {
    const s = session();
    const db = join(s.dir, 'missing', 'dir', 'ledger.db');
    const defined = cli(['--db', db, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02'], { RUNLEDGER_NOW: NOW });
    expectRefusal(defined, 2, /missing[/\\]dir/);
    expect(existsSync(join(s.dir, 'missing'))).toBe(false);

    s.define();
    expect(s.run('export', '--out', join(s.dir, 'ledger.jsonl')).code).toBe(0);
    expectRefusal(cli(['--db', db, 'import', join(s.dir, 'ledger.jsonl')], { RUNLEDGER_NOW: NOW }), 2, /missing[/\\]dir/);
  });

  test("--db '' and an empty RUNLEDGER_DB are refused (exit 2): neither defines into a throwaway database nor into an unnamed ./runledger.db", () => {
    const s = session();
    const define = ['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02'];
    expectRefusal(cli(['--db', '', ...define], { RUNLEDGER_NOW: NOW }), 2, /--db/);
    const r = spawnSync(process.execPath, [BIN, ...define], { cwd: s.dir, encoding: 'utf8', env: { ...process.env, RUNLEDGER_DB: '', RUNLEDGER_NOW: NOW } });
    expectRefusal({ code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }, 2, /RUNLEDGER_DB is set but empty/);
    expect(existsSync(join(s.dir, 'runledger.db'))).toBe(false);
    // --db wins over the variable, as everywhere.
    const db = join(s.dir, 'named.db');
    const named = spawnSync(process.execPath, [BIN, '--db', db, ...define], { cwd: s.dir, encoding: 'utf8', env: { ...process.env, RUNLEDGER_DB: '', RUNLEDGER_NOW: NOW } });
    expect(named.status, named.stderr).toBe(0);
    expect(eventCount(db)).toBe(1);
  });

  const asPlainUser = commandBoundByFileModes();
  test.skipIf(asPlainUser === undefined)('a write to a ledger file the user may only read: one line naming the file, not exit 1', () => {
    const s = session();
    s.define();
    chmodSync(s.db, 0o444);
    const before = eventCount(s.db);
    const argv = [...(asPlainUser ?? []), process.execPath, BIN, 'start', 'etl_orders', '2026-11-02'];
    const r = spawnSync(argv[0] as string, argv.slice(1), { encoding: 'utf8', env: { ...process.env, ...s.env, RUNLEDGER_ACTOR: 'tester' } });
    expectRefusal({ code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr }, 2, /read-only|readonly/);
    expect(eventCount(s.db)).toBe(before);
  });
});

/**
 * The argv prefix that runs a command bound by file modes: none for a plain user; for root, `setpriv` dropping
 * CAP_DAC_OVERRIDE (root writes to any file otherwise). The command stays root and keeps CAP_DAC_READ_SEARCH, so it
 * reads the checkout and node wherever they live: running it as `nobody` instead failed in a clone inside a 0700
 * directory (mktemp -d, /root), which nobody cannot enter. Undefined (the test skips) when root cannot drop the
 * capability here, checked by trying to open a read-only file for writing the way the CLI would.
 */
function commandBoundByFileModes(): string[] | undefined {
  if (process.getuid?.() !== 0) return [];
  const prefix = ['setpriv', '--bounding-set=-dac_override', '--inh-caps=-dac_override', '--'];
  const dir = tempDir('runledger-probe-');
  const file = join(dir, 'read-only');
  writeFileSync(file, '');
  chmodSync(file, 0o444);
  const probe = "try { require('node:fs').openSync(process.argv[1], 'r+'); process.exit(3); } catch (e) { process.exit(e.code === 'EACCES' ? 0 : 4); }";
  const r = spawnSync(prefix[0] as string, [...prefix.slice(1), process.execPath, '-e', probe, file]);
  return r.status === 0 ? prefix : undefined;
}

describe('instants that do not exist', () => {
  test('--now, --as-of, log --since and --until refuse 2026-02-30 instead of reading it as 2 March', () => {
    const s = session();
    s.define();
    const bad = '2026-02-30T00:00:00Z';
    expectRefusal(s.run('--now', bad, 'state', 'etl_orders'), 2, /--now '2026-02-30T00:00:00Z'/);
    expectRefusal(s.run('state', 'etl_orders', '--as-of', bad), 2, /--as-of/);
    expectRefusal(s.run('log', '--since', bad), 2, /--since/);
    expectRefusal(s.run('log', '--until', '2026-04-31T10:00:00+02:00'), 2, /--until/);
    expectRefusal(s.run('--now', '2026-11-05T24:00:00Z', 'state', 'etl_orders'), 2, /--now/);
    // Real instants, with fractions and offsets, still pass.
    expect(s.run('--now', '2028-02-29T23:59:59.999+07:00', 'state', 'etl_orders').code).toBe(0);
    expect(s.run('log', '--since', '2026-11-04T18:00:00.5Z').code).toBe(0);
  });
});

describe('export --out a directory', () => {
  test('is one line with exit 2, and leaves no temporary file behind', () => {
    const s = session();
    s.define();
    const target = join(s.dir, 'exports');
    mkdirSync(target);
    expectRefusal(s.run('export', '--out', target), 2, /exports/);
    expect(readdirSync(s.dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('a range whose --from is after its --to', () => {
  test('clear names the reversed range (it used to say "name the dates to clear") and clears nothing', () => {
    const s = session();
    s.define();
    expect(s.run('succeed', s.start('2026-11-03')).code).toBe(0);
    const before = eventCount(s.db);
    expectRefusal(s.run('clear', 'etl_orders', '--from', '2026-11-04', '--to', '2026-11-02'), 2, /--from 2026-11-04 is after --to 2026-11-02/);
    expect(eventCount(s.db)).toBe(before);
  });

  test('state and pending refuse it as backfill does, instead of answering an empty range', () => {
    const s = session();
    s.define();
    expectRefusal(s.run('state', 'etl_orders', '--from', '2026-11-04', '--to', '2026-11-02'), 2, /is after --to/);
    expectRefusal(s.run('pending', 'etl_orders', '--from', '2026-11-04', '--to', '2026-11-02', '--json'), 2, /is after --to/);
    // One date is a range too.
    expect(s.run('state', 'etl_orders', '--from', '2026-11-03', '--to', '2026-11-03').code).toBe(0);
  });
});

describe('after a redefinition, the keys recorded under the old timetable can still be named', () => {
  test('clear, runs --date and log --date take a key that state shows (it used to say the date never ran)', () => {
    const s = session();
    s.define();
    const runId = s.start('2026-11-03');
    expect(s.run('succeed', runId).code).toBe(0);
    expect(s.run('define', 'etl_orders', '--schedule', '0 6 * * *', '--reason', 'upstream lands at 05:00').code).toBe(3);
    expect(s.run('define', 'etl_orders', '--schedule', '0 6 * * *', '--effective', 'now', '--reason', 'upstream lands at 05:00').code).toBe(0);
    const state = JSON.parse(s.run('state', 'etl_orders', '--json').stdout) as { dates: Array<{ date: string; status: string }> };
    expect(state.dates).toContainEqual(expect.objectContaining({ date: '2026-11-03', status: 'success' }));

    const runs = JSON.parse(s.run('runs', 'etl_orders', '--date', '2026-11-03', '--json').stdout) as { runs: Array<{ runId: string }> };
    expect(runs.runs.map((r) => r.runId)).toEqual([runId]);
    const log = JSON.parse(s.run('log', 'etl_orders', '--date', '2026-11-03', '--json').stdout) as { events: Array<{ type: string }> };
    expect(log.events.map((e) => e.type)).toEqual(['RunStarted', 'RunSucceeded']);

    const cleared = JSON.parse(s.run('clear', 'etl_orders', '2026-11-03', '--json').stdout) as { cleared: Array<{ date: string }>; skipped: unknown[] };
    expect(cleared).toMatchObject({ cleared: [{ date: '2026-11-03' }], skipped: [] });
    const after = JSON.parse(s.run('state', 'etl_orders', '--json').stdout) as { dates: Array<{ date: string; status: string }> };
    expect(after.dates).toContainEqual(expect.objectContaining({ date: '2026-11-03', status: 'cleared' }));
  });
});

describe('demo --dir that cannot be a directory', () => {
  test('a file or an empty path is one line with exit 2', () => {
    const s = session();
    const file = join(s.dir, 'a-file');
    writeFileSync(file, 'not a directory\n');
    expectRefusal(cli(['demo', '--dir', file]), 2, /a-file/);
    expectRefusal(cli(['demo', '--dir', '']), 2, /--dir/);
  });
});

/** A command line run in-process as `main.ts` runs it: the extra commands (runner, audit, demo) loaded only when it needs them. */
async function inProcess(args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: {}, clock: Date.now, isTTY: false }, async () => extraCommands);
  return { code, stdout, stderr };
}

describe('--help of every command teaches with an example (README: "explains each command with an example")', () => {
  const commands = ['define', 'pipelines', 'start', 'succeed', 'fail', 'heartbeat', 'task', 'clear', 'state', 'watermark', 'pending', 'runs', 'log', 'backfill', 'catchup', 'verify', 'export', 'import', 'replay', 'demo'];
  // In-process (twenty CLI starts saved); the binary prints the same help, checked once for a lazily loaded command.
  test('the binary prints the help the program builds (backfill, loaded only when named)', async () => {
    const r = cli(['backfill', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe((await inProcess(['backfill', '--help'])).stdout);
  });

  test.each(commands)('%s --help', async (command) => {
    const r = await inProcess([command, '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const examples = r.stdout.split(/\nExamples?:\n/)[1] ?? '';
    expect(examples).toMatch(new RegExp(`^ {2}.*runledger (--db \\S+ )?${command}\\b`, 'm'));
  });
});
