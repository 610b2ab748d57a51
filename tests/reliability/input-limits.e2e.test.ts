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
