// A `start` nobody finished holds the pipeline's only place (max-active-runs 1, the default) until its lease runs
// out: a backfill waiting behind it says which run blocks it, how old it is, and the commands that end it.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { DateState } from '../../projections/date-state.js';
import { waitingForPlaceText } from '../../src/runner/execute-runs.js';
import { runCommandLine } from '../../src/cli/run-command-line.js';
import { tempDir } from '../support/run-cli.js';

describe('a backfill waiting behind a forgotten start', () => {
  test('the wait note names the run, its age, its lease and the commands that end it', () => {
    const live = [{ date: '2026-11-03', runId: '01KBLOCKER', startedAt: '2026-11-10T08:00:00Z', leaseExpiresAt: '2026-11-10T09:00:00Z' } as DateState];
    expect(waitingForPlaceText('etl_orders', 1, live, Date.parse('2026-11-10T08:42:10Z'))).toBe(
      'etl_orders has 1 live run and allows 1 at once (its --max-active-runs): 2026-11-03 (run 01KBLOCKER, started 42m10s ago, lease until 2026-11-10T09:00:00Z); waiting for a free place; if a run was forgotten, end it: `runledger succeed 01KBLOCKER`, `runledger fail 01KBLOCKER --error <message>`, or `runledger clear etl_orders 2026-11-03`',
    );
  });

  test('when a run was started and never finished then backfill says so on stderr once, and runs once the lease ends', async () => {
    const db = join(tempDir(), 'ledger.db');
    // The CLI's clock (what `main.ts` gives it as Date.now) running 20 times as fast as the real one: the forgotten
    // start's 20 s lease runs out about a second after it began, while backfill's waits, polls and commands are real.
    const origin = Date.now();
    const clock = () => origin + (Date.now() - origin) * 20;
    const run = async (args: string[]) => {
      let stdout = '';
      let stderr = '';
      const code = await runCommandLine(['--db', db, ...args], { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t), env: { RUNLEDGER_ACTOR: 'tester' }, clock, isTTY: false });
      return { code, stdout, stderr };
    };
    expect((await run(['define', 'p', '--schedule', '@daily', '--start', '2026-11-02', '--end', '2026-11-04'])).code).toBe(0);
    const started = await run(['start', 'p', '2026-11-02', '--lease', '20s', '--json']);
    expect(started.code).toBe(0);
    const runId = (JSON.parse(started.stdout) as { runId: string }).runId;
    const r = await run(['backfill', 'p', '--from', '2026-11-03', '--to', '2026-11-04', '--', process.execPath, '-e', '']);
    expect(r.code).toBe(0);
    const notes = r.stderr.split('\n').filter((line) => line.includes('waiting for a free place'));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(new RegExp(`2026-11-02 \\(run ${runId}, started [\\d.]+s ago, lease until [^)]+\\)`));
    expect(notes[0]).toContain(`\`runledger succeed ${runId}\`, \`runledger fail ${runId} --error <message>\`, or \`runledger clear p 2026-11-02\``);
  });
});
