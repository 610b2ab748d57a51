// Issue 4 end to end with the real binary and real child processes (S10; the JSON shapes of docs/runs-and-catchup.md).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test, vi } from 'vitest';
import { NOW, cli, defineOrders, inProcess, stateOf, tempDir } from './cli-helpers.js';

// Each test spawns the binary a few times; a loaded CI machine needs more than the default 5 s.
vi.setConfig({ testTimeout: 30_000 });

const RANGE = ['--from', '2026-11-02', '--to', '2026-11-04'];
const ECHO = ['--', 'sh', '-c', 'echo {date} >> out.txt'];
/** Fails on 2026-11-03 only. */
const FAIL_03 = ['--', 'sh', '-c', 'if [ {date} = 2026-11-03 ]; then echo "no partition for {date}" >&2; exit 3; fi; echo {date} >> out.txt'];

function backfill(dir: string, ...args: string[]) {
  return cli(dir, ['--now', NOW, 'backfill', 'etl_orders', ...args]);
}
const lines = (dir: string) => readFileSync(join(dir, 'out.txt'), 'utf8').trim().split('\n');

describe('acceptance 2: a three-date backfill, a no-op re-run, a forced reprocess', async () => {
  test('when the backfill runs then three lines are written in date order, again nothing, --reprocess completed three more', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const first = backfill(dir, ...RANGE, ...ECHO);
    expect(first.code).toBe(0);
    expect(lines(dir)).toEqual(['2026-11-02', '2026-11-03', '2026-11-04']);
    expect(first.stdout).toContain('3 succeeded, 0 failed, 0 skipped');

    const again = backfill(dir, ...RANGE, ...ECHO);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('nothing to backfill for etl_orders from 2026-11-02 to 2026-11-04');
    expect(lines(dir)).toHaveLength(3);

    const forced = backfill(dir, ...RANGE, '--reprocess', 'completed', ...ECHO);
    expect(forced.code).toBe(0);
    expect(lines(dir)).toEqual(['2026-11-02', '2026-11-03', '2026-11-04', '2026-11-02', '2026-11-03', '2026-11-04']);
    const state = (await stateOf(dir));
    expect([...state.values()].map((d) => `${d.date} ${d.status} ${d.attempt} ${d.runType}`)).toEqual([
      '2026-11-02 success 2 backfill',
      '2026-11-03 success 2 backfill',
      '2026-11-04 success 2 backfill',
    ]);
  });

  test('when --force is given then it reprocesses like --reprocess completed', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    backfill(dir, ...RANGE, ...ECHO);
    expect(backfill(dir, ...RANGE, '--force', ...ECHO).code).toBe(0);
    expect(lines(dir)).toHaveLength(6);
  });
});

describe('acceptance 3: stop at the first failure, or carry on', async () => {
  test('when a run fails then the backfill exits 6 and the later date stays pending', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = backfill(dir, ...RANGE, ...FAIL_03);
    expect(r.code).toBe(6);
    expect(lines(dir)).toEqual(['2026-11-02']);
    const state = (await stateOf(dir));
    expect(state.get('2026-11-03')).toMatchObject({ status: 'failed', errorCode: 'exit:3' });
    expect(state.get('2026-11-03')?.error).toContain('no partition for 2026-11-03');
    expect(state.get('2026-11-04')?.status).toBe('missing');
    const pending = JSON.parse((await inProcess(dir, ['--now', NOW, 'pending', 'etl_orders', '--json'])).stdout) as { pending: Array<{ date: string; reason: string }> };
    expect(pending.pending).toEqual([expect.objectContaining({ date: '2026-11-03', reason: 'failed' }), expect.objectContaining({ date: '2026-11-04', reason: 'missing' })]);
    expect(r.stderr).toContain('--continue-on-failure');
  });

  test('when --continue-on-failure is given then 2026-11-04 succeeds after the failure', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = backfill(dir, ...RANGE, '--continue-on-failure', '--json', ...FAIL_03);
    expect(r.code).toBe(6);
    const summary = JSON.parse(r.stdout) as { runs: Array<{ date: string; status: string; exitCode: number | null }>; succeeded: number; failed: number; skipped: number };
    expect(summary.runs.map((x) => `${x.date} ${x.status} ${x.exitCode}`)).toEqual(['2026-11-02 success 0', '2026-11-03 failed 3', '2026-11-04 success 0']);
    expect([summary.succeeded, summary.failed, summary.skipped]).toEqual([2, 1, 0]);
    expect((await stateOf(dir)).get('2026-11-04')?.status).toBe('success');
  });

  test('when the first backfill stopped then the same command with --continue-on-failure runs the rest', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    backfill(dir, ...RANGE, ...FAIL_03);
    const r = backfill(dir, ...RANGE, '--continue-on-failure', ...FAIL_03);
    expect(r.code).toBe(0);
    expect((await stateOf(dir)).get('2026-11-04')?.status).toBe('success');
    expect((await stateOf(dir)).get('2026-11-03')?.status).toBe('failed');
  });
});

describe('reprocess modes (S10)', async () => {
  test.each([
    { label: 'none runs missing and cleared only', mode: 'none', ran: ['2026-11-04'] },
    { label: 'failed adds the failed date', mode: 'failed', ran: ['2026-11-03', '2026-11-04'] },
    { label: 'completed adds the successful date', mode: 'completed', ran: ['2026-11-02', '2026-11-03', '2026-11-04'] },
  ])('$label', async ({ mode, ran }) => {
    const dir = tempDir();
    await defineOrders(dir);
    backfill(dir, ...RANGE, '--continue-on-failure', ...FAIL_03); // 02 success, 03 failed, 04 success
    expect((await inProcess(dir, ['--now', NOW, 'clear', 'etl_orders', '2026-11-04', '--reason', 'bad data'])).code).toBe(0);
    writeFileSync(join(dir, 'out.txt'), '');
    backfill(dir, ...RANGE, '--reprocess', mode, ...ECHO);
    expect(readFileSync(join(dir, 'out.txt'), 'utf8').trim().split('\n')).toEqual(ran);
  });

  test('when --run-backwards is given then the newest date runs first', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    expect(backfill(dir, ...RANGE, '--run-backwards', ...ECHO).code).toBe(0);
    expect(lines(dir)).toEqual(['2026-11-04', '2026-11-03', '2026-11-02']);
  });

  test('when the range reaches past now then dates not due are skipped and said so', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = backfill(dir, '--from', '2026-11-02', '--to', '2026-11-30', '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('would run 3 dates');
    expect(r.stdout).toContain('not due yet from 2026-11-05');
  });
});

describe('dry runs print the plan and write nothing', async () => {
  test('backfill --dry-run --json has the documented shape', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = backfill(dir, ...RANGE, '--dry-run', '--json');
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { pipeline: string; slots: unknown[] };
    expect(plan.pipeline).toBe('etl_orders');
    expect(plan.slots[0]).toEqual({
      date: '2026-11-02',
      reason: 'missing',
      logicalDate: '2026-11-02T00:00:00+07:00',
      runAfter: '2026-11-03T00:00:00+07:00',
      dataInterval: { start: '2026-11-02T00:00:00+07:00', end: '2026-11-03T00:00:00+07:00' },
    });
    expect(plan.slots).toHaveLength(3);
    expect([...(await stateOf(dir)).values()].every((d) => d.status === 'missing')).toBe(true);
  });

  test.each([
    { label: 'catchup on: every due date since the start', extra: [], expected: ['2026-11-02', '2026-11-03', '2026-11-04'] },
    { label: 'catchup off: only the latest due date', extra: ['--no-catchup'], expected: ['2026-11-04'] },
  ])('catchup --dry-run --json, $label', async ({ extra, expected }) => {
    const dir = tempDir();
    await defineOrders(dir, extra);
    const r = cli(dir, ['--now', NOW, 'catchup', 'etl_orders', '--dry-run', '--json']);
    expect(r.code).toBe(0);
    const plan = JSON.parse(r.stdout) as { slots: Array<{ date: string; reason: string; logicalDate: string; runAfter: string; dataInterval: unknown }> };
    expect(plan.slots.map((s) => s.date)).toEqual(expected);
    expect(plan.slots[0]).toMatchObject({ reason: 'missing', logicalDate: expect.any(String), runAfter: expect.any(String), dataInterval: expect.any(Object) });
  });
});

describe('catchup runs after the latest scheduled run (S9)', async () => {
  test('when a scheduled run exists then catchup runs only the dates after it, recorded as catchup', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const run = (await inProcess(dir, ['--now', NOW, 'start', 'etl_orders', '2026-11-02'])).stdout.trim();
    await inProcess(dir, ['--now', NOW, 'succeed', run]);
    const r = cli(dir, ['--now', NOW, 'catchup', 'etl_orders', ...ECHO]);
    expect(r.code).toBe(0);
    expect(lines(dir)).toEqual(['2026-11-03', '2026-11-04']);
    expect((await stateOf(dir)).get('2026-11-03')?.runType).toBe('catchup');
    expect(cli(dir, ['--now', NOW, 'catchup', 'etl_orders', ...ECHO]).stdout).toContain('nothing to catchup');
  });
});

describe('the command: placeholders, environment, metrics', async () => {
  test('when the command writes JSON to $RUNLEDGER_METRICS then it becomes the success metrics', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const script = 'printf \'{"rows": 7, "date": "%s"}\' "$RUNLEDGER_DATE" > "$RUNLEDGER_METRICS"';
    expect(backfill(dir, '--from', '2026-11-02', '--to', '2026-11-02', '--', 'sh', '-c', script).code).toBe(0);
    expect((await stateOf(dir)).get('2026-11-02')?.metrics).toEqual({ rows: 7, date: '2026-11-02' });
  });

  test('when the metrics file is not a JSON object then the run fails with invalidMetrics', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = backfill(dir, '--from', '2026-11-02', '--to', '2026-11-02', '--', 'sh', '-c', 'echo "rows: 7" > "$RUNLEDGER_METRICS"');
    expect(r.code).toBe(6);
    expect((await stateOf(dir)).get('2026-11-02')).toMatchObject({ status: 'failed', errorCode: 'invalidMetrics' });
  });

  test('placeholders are filled in every argument and the environment carries the run', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const script = 'echo "$0|$1|$2|$RUNLEDGER_PIPELINE|$RUNLEDGER_DATE|$RUNLEDGER_INTERVAL_START|$RUNLEDGER_INTERVAL_END|$RUNLEDGER_RUN_ID|$RUNLEDGER_ATTEMPT" > env.txt';
    const r = backfill(dir, '--from', '2026-11-03', '--to', '2026-11-03', '--json', '--', 'sh', '-c', script, 'd={date}', '{start}', '{end}/{runId}');
    expect(r.code).toBe(0);
    const runId = (JSON.parse(r.stdout) as { runs: Array<{ runId: string }> }).runs[0]?.runId;
    expect(readFileSync(join(dir, 'env.txt'), 'utf8').trim()).toBe(
      [
        'd=2026-11-03',
        '2026-11-03T00:00:00+07:00',
        `2026-11-04T00:00:00+07:00/${runId}`,
        'etl_orders',
        '2026-11-03',
        '2026-11-03T00:00:00+07:00',
        '2026-11-04T00:00:00+07:00',
        runId,
        '1',
      ].join('|'),
    );
  });

  test('no shell is in between: a metacharacter in an argument stays literal', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    expect(backfill(dir, '--from', '2026-11-02', '--to', '2026-11-02', '--', 'touch', 'a;b {date}').code).toBe(0);
    expect(readFileSync(join(dir, 'a;b 2026-11-02'), 'utf8')).toBe('');
  });

  test('when --json is given then stdout is one JSON document and the command output goes to stderr', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = backfill(dir, ...RANGE, '--json', '--', 'echo', 'hello {date}');
    expect(() => JSON.parse(r.stdout)).not.toThrow();
    expect(r.stderr).toContain('hello 2026-11-02');
  });

  test('when the command does not exist then it is refused before the first run (exit 2) and nothing is recorded', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = backfill(dir, '--from', '2026-11-02', '--to', '2026-11-02', '--', 'no-such-command-xyz');
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/'no-such-command-xyz' is not an executable on the PATH/)]);
    expect((await stateOf(dir)).get('2026-11-02')).toMatchObject({ status: 'missing' });
  });
});

describe('bad input exits 2 and writes nothing', async () => {
  test.each([
    { label: 'no command', args: [...RANGE], message: 'no command to run' },
    { label: 'an unknown reprocess mode', args: [...RANGE, '--reprocess', 'all', ...ECHO], message: 'all' },
    { label: '--force with --reprocess none', args: [...RANGE, '--force', '--reprocess', 'none', ...ECHO], message: '--force means --reprocess completed' },
    { label: 'from after to', args: ['--from', '2026-11-04', '--to', '2026-11-02', ...ECHO], message: 'is after --to' },
    { label: 'an invalid date', args: ['--from', '2026-02-30', '--to', '2026-11-02', ...ECHO], message: '2026-02-30' },
    { label: 'zero max active runs', args: [...RANGE, '--max-active-runs', '0', ...ECHO], message: '--max-active-runs' },
    { label: 'a bad lease', args: [...RANGE, '--lease', 'soon', ...ECHO], message: '--lease' },
  ])('$label', async ({ args, message }) => {
    const dir = tempDir();
    await defineOrders(dir);
    const r = backfill(dir, ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect([...(await stateOf(dir)).values()].every((d) => d.status === 'missing')).toBe(true);
  });

  test('an unknown pipeline exits 4', async () => {
    const dir = tempDir();
    await defineOrders(dir);
    expect(cli(dir, ['--now', NOW, 'backfill', 'nope', ...RANGE, ...ECHO]).code).toBe(4);
  });
});
