import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cli, NOW, tempDir } from '../runner/cli-helpers.js';

/** A ledger with etl_orders (@daily from 2026-11-02) in a fresh directory. */
function defined(): string {
  const dir = tempDir();
  const r = cli(dir, ['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'UTC']);
  expect(r.code).toBe(0);
  return dir;
}

function start(dir: string, date: string): string {
  const r = cli(dir, ['--now', NOW, 'start', 'etl_orders', date]);
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

function stateOf(dir: string): Array<{ date: string; status: string; error: string | null; metrics: unknown }> {
  return JSON.parse(cli(dir, ['--now', NOW, 'state', 'etl_orders', '--json']).stdout).dates;
}

describe('input that used to crash with exit 1 or be accepted silently', () => {
  test('metrics nested 5,000 deep are bad input naming the depth limit, not a stack overflow', () => {
    const dir = defined();
    const run = start(dir, '2026-11-02');
    const deep = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    writeFileSync(join(dir, 'deep.json'), deep);
    const r = cli(dir, ['succeed', run, '--metrics', '@deep.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('runledger: --metrics nests deeper than 64 levels; flatten it\n');
  });

  test('metrics over 64 KB and an error text over 64 KB are refused, and nothing is recorded', () => {
    const dir = defined();
    const run = start(dir, '2026-11-02');
    writeFileSync(join(dir, 'big.json'), JSON.stringify({ blob: 'x'.repeat(70_000) }));
    const big = cli(dir, ['succeed', run, '--metrics', '@big.json']);
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/^runledger: metrics cannot be recorded: they take 70,011 bytes, over the 64 KB limit; .*\n$/);
    const long = cli(dir, ['fail', run, '--error', 'e'.repeat(70_000)]);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/^runledger: the error message takes 70,000 bytes, over the 64 KB limit; .*\n$/);
    expect(stateOf(dir).find((d) => d.date === '2026-11-02')?.status).toBe('running');
  });

  test('a --tasks chain of 5,000 is bad input naming the limit on tasks', () => {
    const dir = tempDir();
    const tasks = Array.from({ length: 5000 }, (_, i) => (i === 0 ? { id: 't0' } : { id: `t${i}`, upstream: [`t${i - 1}`] }));
    writeFileSync(join(dir, 'tasks.json'), JSON.stringify({ tasks }));
    const r = cli(dir, ['define', 'chain', '--schedule', '@daily', '--start', '2026-11-02', '--tasks', 'tasks.json']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('declares 5000 tasks, over the limit of 1000');
  });

  test.each([
    [':memory:', "--db ':memory:' would keep the ledger only while this one command runs"],
    ['/dev/null', '/dev/null is not a regular file'],
  ])('--db %s is refused with exit 2', (db, message) => {
    const dir = tempDir();
    const r = cli(dir, ['--db', db, 'define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  test.each([
    ['a directory', 'mkdir "$RUNLEDGER_METRICS"', '$RUNLEDGER_METRICS is a directory'],
    ['a symlink to /dev/zero', 'ln -s /dev/zero "$RUNLEDGER_METRICS"', '$RUNLEDGER_METRICS is not a regular file'],
    ['over 64 KB', 'printf \'{"blob":"%070000d"}\' 0 > "$RUNLEDGER_METRICS"', 'holds more than the 64 KB metrics may take'],
    ['nested 5,000 deep', 'node -e \'process.stdout.write("{\\"a\\":".repeat(5000)+"1"+"}".repeat(5000))\' > "$RUNLEDGER_METRICS"', 'they nest deeper than 64 levels'],
  ])('a metrics file that is %s fails the run with the reason instead of recording success {}', (_label, script, reason) => {
    const dir = defined();
    const r = cli(dir, ['--now', NOW, 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-02', '--', 'sh', '-c', script]);
    expect(r.code).toBe(6);
    const day = stateOf(dir).find((d) => d.date === '2026-11-02');
    expect(day?.status).toBe('failed');
    expect(day?.error).toContain(reason);
  });
});

describe('per-pipeline caps (define --max-metrics-bytes / --max-error-bytes)', () => {
  test('a cap over 16 MB is one line, exit 2, and a first define that asks for it creates no ledger file', async () => {
    const { existsSync } = await import('node:fs');
    const dir = tempDir();
    const r = cli(dir, ['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--max-metrics-bytes', '17MB']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('runledger: --max-metrics-bytes (maxMetricsBytes) must be a whole number of bytes from 1 KB to 16 MB, not 17,825,792; larger texts belong in files the run points to\n');
    expect(existsSync(join(dir, 'runledger.db'))).toBe(false);
    const bad = cli(dir, ['define', 'etl_orders', '--schedule', '@daily', '--start', '2026-11-02', '--max-error-bytes', 'big']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('the CLI, the runner and define --help follow the caps a pipeline sets', () => {
    const dir = defined();
    const raised = cli(dir, ['define', 'etl_orders', '--max-metrics-bytes', '128KB', '--max-error-bytes', '2KB']);
    expect(raised.code).toBe(0);
    expect(raised.stdout).toContain('metrics up to 128 KB, errors up to 2 KB');
    expect(raised.stdout).toContain('maxMetricsBytes: 64 KB -> 128 KB');
    // 70 KB of metrics: over the default, within this pipeline's 128 KB.
    const run = start(dir, '2026-11-02');
    writeFileSync(join(dir, 'big.json'), JSON.stringify({ blob: 'x'.repeat(70_000) }));
    expect(cli(dir, ['succeed', run, '--metrics', '@big.json']).code).toBe(0);
    const other = start(dir, '2026-11-03');
    const long = cli(dir, ['fail', other, '--error', 'e'.repeat(3000)]);
    expect(long.code).toBe(2);
    expect(long.stderr).toMatch(/^runledger: the error message takes 3,000 bytes, over the 2 KB limit; .*define --max-error-bytes\n$/);
    // A short one fits; it also frees the pipeline's one place (max active runs 1) for the backfill below.
    expect(cli(dir, ['fail', other, '--error', 'too long before']).code).toBe(0);
    expect(cli(dir, ['define', 'etl_orders', '--max-metrics-bytes', '1KB']).code).toBe(0);
    // 11-02 again (--force: it succeeded above), now with 2 KB of metrics under a 1 KB cap.
    const r = cli(dir, ['--now', NOW, 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-02', '--force', '--', 'sh', '-c', 'printf \'{"blob":"%02000d"}\' 0 > "$RUNLEDGER_METRICS"']);
    expect(r.code).toBe(6);
    expect(stateOf(dir).find((d) => d.date === '2026-11-02')).toMatchObject({ status: 'failed', error: expect.stringContaining('holds more than the 1 KB metrics may take') });
    const help = cli(dir, ['define', '--help']).stdout;
    expect(help).toContain('--max-metrics-bytes <size>');
    expect(help).toContain('--max-error-bytes <size>');
  });
});

describe('files the runner leaves', () => {
  test('per-run directories of a runner that died are removed on the next start; a live runner keeps its own', async () => {
    const { mkdirSync, readdirSync } = await import('node:fs');
    const { spawnSync } = await import('node:child_process');
    const dir = defined();
    const tmp = join(dir, 'tmp');
    const deadPid = spawnSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).stdout.trim();
    mkdirSync(join(tmp, `runledger-run-${deadPid}-abc123`, ''), { recursive: true });
    writeFileSync(join(tmp, `runledger-run-${deadPid}-abc123`, 'metrics.json'), '{}');
    mkdirSync(join(tmp, `runledger-run-${process.pid}-live00`));
    mkdirSync(join(tmp, 'unrelated-dir'));
    const r = cli(dir, ['--now', NOW, 'backfill', 'etl_orders', '--from', '2026-11-02', '--to', '2026-11-02', '--', 'true'], { TMPDIR: tmp });
    expect(r.code).toBe(0);
    expect(readdirSync(tmp).sort()).toEqual([`runledger-run-${process.pid}-live00`, 'unrelated-dir']);
  });
});
