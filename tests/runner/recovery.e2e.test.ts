// What a killed runner leaves (issue 39, item 2): a plain catchup takes it over and says so; a retry nobody
// started shows as overdue in status, fails check and reaches notify. The runners are real processes killed
// with SIGKILL; the ledger's clock is fixed with --now so the retry's time and the lease pass without waiting.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { cliAsync, inProcess, tempDir, waitForFile } from './cli-helpers.js';
import { openLedger } from '../../src/open-ledger.js';
import { createServer } from '../../src/serve/create-server.js';


const T = '2026-11-03T01:00:00Z';
const at = (ms: number) => new Date(Date.parse(T) + ms).toISOString();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

type Row = { date: string; status: string; attempt: number | null; attempts: number };

async function datesOf(dir: string, now: string): Promise<Map<string, Row>> {
  const r = await inProcess(dir, ['--now', now, 'state', 'etl', '--json']);
  return new Map((JSON.parse(r.stdout) as { dates: Row[] }).dates.map((d) => [d.date, d]));
}


/** Running, not a zombie waiting to be reaped (as the takeover's own check reads /proc). */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(check: () => Promise<boolean>): Promise<void> {
  const give = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > give) throw new Error('timed out waiting for the runner');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a runner killed while dates wait for their retry', () => {
  test('when the retry is overdue then status, check and notify say so, and a plain catchup resumes the attempts', async () => {
    const dir = tempDir();
    expect((await inProcess(dir, ['--now', T, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-01', '--retries', '2', '--retry-delay', '1m'])).code).toBe(0);
    // A notifier that exists before anything happens (a new consumer reports from its own start on).
    const notes = join(dir, 'notes.jsonl');
    const notify = (now: string) => inProcess(dir, ['--now', now, 'notify', '--on', 'overdue,failed', '--consumer', 'oncall', '--once', '--', 'sh', '-c', `cat >> '${notes}'; echo >> '${notes}'`]);
    expect((await notify(T)).code).toBe(0);

    // Both dates fail their first attempt; the runner waits for the retries' time and is killed meanwhile.
    const { child, done } = cliAsync(dir, ['--now', T, 'catchup', 'etl', '--no-logs', '--', 'sh', '-c', 'exit 1']);
    await until(async () => [...(await datesOf(dir, T)).values()].filter((d) => d.status === 'up_for_retry').length === 2);
    child.kill('SIGKILL');
    await done;

    // Before the retry's time plus the lease (1h): waiting, not overdue.
    const early = at(30 * MINUTE);
    const before = await inProcess(dir, ['--now', early, 'check', '--max-lag', '30d']);
    expect(before.code).toBe(0);

    const late = at(2 * HOUR);
    const status = JSON.parse((await inProcess(dir, ['--now', late, 'status', 'etl', '--json'])).stdout) as { pipelines: Array<{ overdueRetries?: Array<{ date: string; attempt: number; of: number }> }> };
    expect(status.pipelines[0]?.overdueRetries?.map((o) => [o.date, o.attempt, o.of])).toEqual([
      ['2026-11-01', 2, 3],
      ['2026-11-02', 2, 3],
    ]);
    expect((await inProcess(dir, ['--now', late, 'status', 'etl'])).stdout).toContain('2 retry overdue');
    // The web view says it too, over a real socket: the overview's pending cell and the pipeline page's pending rows;
    // before the lease has passed, neither does.
    for (const [now, shown] of [[early, false], [late, true]] as const) {
      const ledger = await openLedger({ db: join(dir, 'runledger.db'), clock: () => Date.parse(now) });
      const app = await createServer({ ledger, clock: () => Date.parse(now) });
      try {
        const address = await app.listen({ host: '127.0.0.1', port: 0 });
        const overview = await (await fetch(`${address}/`)).text();
        const page = await (await fetch(`${address}/pipelines/etl`)).text();
        if (shown) {
          expect(overview).toMatch(/data-fact="overdue">2 retries overdue since 2026-11-03T02:01:00\+00:00 \(2026-11-01 first\): nobody started them/);
          expect(page.match(/overdue since 2026-11-03T02:01:00\+00:00: nobody started it/g)).toHaveLength(2);
        } else {
          expect(overview).not.toContain('data-fact="overdue"');
          expect(page).not.toContain('overdue since');
        }
      } finally {
        await app.close();
        await ledger.close();
      }
    }
    const check = await inProcess(dir, ['--now', late, 'check', '--max-lag', '30d']);
    expect(check.code).toBe(7);
    expect(check.stdout).toContain('etl: 2 retries overdue, nobody started them');
    expect(check.stdout).toContain('--allow-overdue-retries');
    expect((await inProcess(dir, ['--now', late, 'check', '--max-lag', '30d', '--allow-overdue-retries'])).code).toBe(0);

    expect((await notify(late)).code).toBe(0);
    const told = readFileSync(notes, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { kind: string; date: string });
    expect(told.map((n) => `${n.kind} ${n.date}`)).toEqual(['overdue 2026-11-01', 'overdue 2026-11-02']);
    // Told once: the same window is not reported again.
    expect((await notify(at(3 * HOUR))).code).toBe(0);
    expect(readFileSync(notes, 'utf8').split('\n').filter((l) => l.trim() !== '')).toHaveLength(2);

    // A plain catchup (no --all-pending) takes both over and says so; the attempt numbers continue.
    const resumed = await cliAsync(dir, ['--now', late, 'catchup', 'etl', '--no-logs', '--json', '--', 'true']).done;
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain('resumed what a stopped runner left: 2026-11-01 (retry, attempt 2), 2026-11-02 (retry, attempt 2)');
    const after = await datesOf(dir, late);
    expect([...after.values()].map((d) => [d.date, d.status, d.attempt])).toEqual([
      ['2026-11-01', 'success', 2],
      ['2026-11-02', 'success', 2],
    ]);
    expect((await inProcess(dir, ['--now', late, 'check', '--max-lag', '30d'])).code).toBe(0);
  });
});

describe('a runner killed mid-run', () => {
  test('when its lease ran out then a plain catchup takes the stalled run over as attempt 2 and says so', async () => {
    const dir = tempDir();
    expect((await inProcess(dir, ['--now', T, 'define', 'etl', '--schedule', '@daily', '--start', '2026-11-02', '--lease', '10m'])).code).toBe(0);
    const { child, done } = cliAsync(dir, ['--now', T, 'catchup', 'etl', '--no-logs', '--kill-grace', '1s', '--', 'sh', '-c', 'echo $$ > cmd.pid; exec sleep 3003']);
    await waitForFile(join(dir, 'cmd.pid'));
    child.kill('SIGKILL');
    await done;
    const pid = Number(readFileSync(join(dir, 'cmd.pid'), 'utf8'));
    try {
      // (That the killed runner's command dies with it is process-groups.e2e.test.ts's subject; here, the takeover.)

      // A plain catchup before the lease ran out leaves the live run alone.
      const early = await cliAsync(dir, ['--now', at(5 * MINUTE), 'catchup', 'etl', '--no-logs', '--json', '--', 'true']).done;
      expect(early.code).toBe(0);
      expect((await datesOf(dir, at(5 * MINUTE))).get('2026-11-02')?.status).toBe('running');

      // A takeover on this host waits while the old run's command lives; the watchdog kills it after the runner's
      // death (process-groups.e2e.test.ts times that), so the takeover below waits for it to be gone.
      await until(async () => !alive(pid));
      const later = at(HOUR);
      const r = await cliAsync(dir, ['--now', later, 'catchup', 'etl', '--no-logs', '--json', '--', 'true']).done;
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ runs: [{ date: '2026-11-02', status: 'success', attempt: 2, reason: 'stalled' }] });
      expect(r.stderr).toContain('resumed what a stopped runner left: 2026-11-02 (stalled, attempt 2)');
    } finally {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone, as it should be.
      }
    }
  });
});
