import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { acceptanceSession, run, tempDir } from './cli-session.js';

type LogDoc = { events: Array<{ position: number; type: string; data: { date?: string; runId?: string }; metadata: { actor: string; reason?: string } }> };

describe('log filters and timeline', () => {
  let db: string;
  const log = async (...args: string[]) => {
    const r = await run(['--db', db, 'log', '--json', ...args]);
    expect(r.code, r.stderr).toBe(0);
    return (JSON.parse(r.stdout) as LogDoc).events;
  };

  beforeAll(async () => {
    db = join(tempDir(), 'ledger.db');
    await acceptanceSession(db);
    // A later event by someone else, so actor and time filters have something to tell apart.
    await run(['--db', db, '--now', '2026-11-06T09:00:00+07:00', '--actor', 'bob', 'start', 'etl_orders', '2026-11-05']);
  });

  test.each([
    { label: 'no filter', args: [], positions: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] },
    { label: '--date (a key of the pipeline)', args: ['etl_orders', '--date', '2026-11-03'], positions: [6, 7, 8, 9] },
    { label: '--type, comma-separated', args: ['--type', 'RunFailed,RunCleared'], positions: [7, 10] },
    { label: '--actor', args: ['--actor', 'bob'], positions: [11] },
    { label: '--since', args: ['--since', '2026-11-05T00:00:00Z'], positions: [11] },
    { label: '--until', args: ['--until', '2026-11-05T00:00:00Z', '--type', 'RunStarted'], positions: [2, 4, 6, 8] },
    { label: '--limit keeps the last n that match', args: ['--type', 'RunStarted', '--limit', '2'], positions: [8, 11] },
    { label: '--as-of', args: ['--as-of', '3'], positions: [1, 2, 3] },
  ])('$label', async ({ args, positions }) => {
    expect((await log(...args)).map((e) => e.position)).toEqual(positions);
  });

  test('--run gives every event of one run', async () => {
    const [failed] = await log('--type', 'RunFailed');
    const events = await log('--run', failed?.data.runId as string);
    expect(events.map((e) => e.type)).toEqual(['RunStarted', 'RunFailed']);
  });

  test('the readable form is a timeline: when, who, what, why', async () => {
    const r = await run(['--db', db, 'log', 'etl_orders', '--date', '2026-11-04']);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^POS\s+WHEN\s+WHO\s+WHAT\s+WHY$/);
    expect(lines.at(-1)).toMatch(/^10\s+2026-11-05T01:00:00\+07:00\s+alice\s+cleared etl_orders 2026-11-04 \(was success\) run \w+\s+bad upstream file$/);
  });

  test.each([
    { label: 'an unknown type, with a suggestion', args: ['--type', 'runfailed'], code: 2, says: /did you mean RunFailed/ },
    { label: 'a bare date for --since', args: ['--since', '2026-11-05'], code: 2, says: /RFC 3339/ },
    { label: 'a zero limit', args: ['--limit', '0'], code: 2, says: /--limit/ },
    { label: 'an unknown run', args: ['--run', 'NOPE'], code: 4, says: /no run NOPE/ },
    { label: 'an unknown pipeline', args: ['nope'], code: 4, says: /no pipeline/ },
  ])('$label is refused in one line', async ({ args, code, says }) => {
    const r = await run(['--db', db, 'log', ...args]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(says);
  });
});
