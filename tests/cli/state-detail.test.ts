import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../src/cli/create-program.js';
import { tempDir } from '../support/run-cli.js';

// state's DETAIL column is a short summary that fits the terminal; the full metrics stay in --json.

const NOW = '2026-11-05T01:00:00+07:00';
const metrics = JSON.stringify({ rows: 7, valid: 4, output: '/tmp/gold/revenue-by-city-2026-11-02.csv', rejectsOutput: null, date: '2026-11-02', ok: true, nested: { a: 1 } });

async function session(columns?: number) {
  const db = join(tempDir(), 'l.db');
  const run = async (...args: string[]) => {
    let stdout = '';
    let stderr = '';
    const deps = { stdout: (t: string) => (stdout += t), stderr: (t: string) => (stderr += t), env: { RUNLEDGER_ACTOR: 'tester' }, clock: () => 0, isTTY: columns !== undefined, ...(columns === undefined ? {} : { columns }) };
    const code = await runCli(['--db', db, '--now', NOW, ...args], deps);
    return { code, stdout, stderr };
  };
  await run('define', 'etl', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta');
  const runId = (await run('start', 'etl', '2026-11-02')).stdout.trim();
  await run('succeed', runId, '--metrics', metrics);
  const failed = (await run('start', 'etl', '2026-11-03')).stdout.trim();
  await run('fail', failed, '--error', `no raw partition: /data/raw/${'x'.repeat(200)}.csv does not exist`);
  return run;
}

describe('state DETAIL', () => {
  test('a success shows its numeric and boolean metrics only; paths, nulls and nested values stay in --json', async () => {
    const run = await session();
    const line = (await run('state', 'etl')).stdout.split('\n').find((l) => l.startsWith('2026-11-02'));
    expect(line).toMatch(/ {2}ok=true rows=7 valid=4$/);
    const json = JSON.parse((await run('state', 'etl', '--json')).stdout) as { dates: Array<{ metrics: unknown }> };
    expect(json.dates[0]?.metrics).toEqual(JSON.parse(metrics));
  });

  test('on a terminal DETAIL takes the width the other columns leave (at least 24), a long error cut with …', async () => {
    for (const columns of [120, 160]) {
      const run = await session(columns);
      const lines = (await run('state', 'etl')).stdout.trimEnd().split('\n');
      for (const line of lines.slice(0, -1)) expect(line.length, line).toBeLessThanOrEqual(columns);
      const failed = lines.find((l) => l.startsWith('2026-11-03')) ?? '';
      expect(failed).toMatch(/no raw partition: \/data.*…$/);
      expect(failed).toHaveLength(columns);
    }
    // Narrower than the fixed columns: DETAIL still shows 24 characters.
    const narrow = await session(80);
    const failed = (await narrow('state', 'etl')).stdout.split('\n').find((l) => l.startsWith('2026-11-03')) ?? '';
    expect(failed.slice(failed.indexOf('no raw'))).toHaveLength(24);
  });

  test('off a terminal the detail is cut at 100 characters', async () => {
    const run = await session();
    const failed = (await run('state', 'etl')).stdout.split('\n').find((l) => l.startsWith('2026-11-03')) ?? '';
    expect(failed.slice(failed.indexOf('no raw'))).toHaveLength(100);
  });
});
