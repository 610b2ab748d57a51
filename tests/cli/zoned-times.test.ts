import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { runCli } from '../../src/cli/create-program.js';
import { extraCommands } from '../../src/cli/extra-commands.js';
import { inZone } from '../../src/format/zoned-instant.js';
import { tempDir } from '../support/run-cli.js';

// Every instant of a pipeline is shown in its zone with the offset, as its dates are; --json keeps UTC.

describe('inZone', () => {
  test.each([
    { label: 'Jakarta', iso: '2026-11-04T18:00:00.000Z', zone: 'Asia/Jakarta', shown: '2026-11-05T01:00:00+07:00' },
    { label: 'UTC', iso: '2026-11-04T18:00:00Z', zone: 'UTC', shown: '2026-11-04T18:00:00+00:00' },
    { label: 'milliseconds kept', iso: '2026-11-04T18:00:00.250Z', zone: 'Asia/Jakarta', shown: '2026-11-05T01:00:00.250+07:00' },
    { label: 'New York before the fall back (EDT)', iso: '2026-11-01T05:30:00Z', zone: 'America/New_York', shown: '2026-11-01T01:30:00-04:00' },
    { label: 'New York after the fall back (EST), same wall time', iso: '2026-11-01T06:30:00Z', zone: 'America/New_York', shown: '2026-11-01T01:30:00-05:00' },
    { label: 'a half-hour offset', iso: '2026-11-04T18:00:00Z', zone: 'Asia/Kolkata', shown: '2026-11-04T23:30:00+05:30' },
  ])('$label', ({ iso, zone, shown }) => {
    expect(inZone(iso, zone)).toBe(shown);
    expect(Date.parse(inZone(iso, zone))).toBe(Date.parse(iso));
  });

  // UTC is written from the ISO text without Intl; Etc/GMT (offset 0, not taken as UTC by name) goes through Intl.
  test('UTC and Etc/UTC read as Intl reads a zone of offset 0, milliseconds, year 1 and year 9999 included', () => {
    // A day its month lacks (which Date.parse rolls into the next month) is read as every other zone reads it.
    const instants = ['0001-01-01T00:00:00Z', '0099-12-31T23:59:59.999Z', '1969-12-31T23:59:59.001Z', '1970-01-01T00:00:00Z', '2026-03-29T01:00:00.5Z', '9999-12-31T23:59:59Z', '2026-02-30T10:00:00.000Z', '2026-04-31T00:00:00.000Z'];
    // Days 29–31 of every month, in a common year and a leap year (those a month has are read from their text).
    for (const year of ['2026', '2024', '1900', '2000']) for (let month = 1; month <= 12; month++) for (const day of [29, 30, 31]) instants.push(`${year}-${String(month).padStart(2, '0')}-${day}T23:59:59.999Z`);
    for (let i = 0; i < 200; i++) instants.push(new Date(Date.UTC(1900, 0, 1) + i * 7_919_999_999_987).toISOString());
    for (const iso of instants) {
      expect(inZone(iso, 'UTC'), iso).toBe(inZone(iso, 'Etc/GMT'));
      expect(inZone(iso, 'Etc/UTC'), iso).toBe(inZone(iso, 'Etc/GMT'));
    }
    expect(inZone('2026-11-04T18:00:00.250Z', 'UTC')).toBe('2026-11-04T18:00:00.250+00:00');
  });
});

describe('the CLI shows a pipeline’s instants in its zone', () => {
  const db = join(tempDir(), 'l.db');
  const run = async (...args: string[]) => {
    let stdout = '';
    const code = await runCli(['--db', db, '--now', '2026-11-05T01:00:00+07:00', ...args], { stdout: (t) => (stdout += t), stderr: () => {}, env: { RUNLEDGER_ACTOR: 'tester' }, clock: () => 0, isTTY: false }, extraCommands);
    expect(code, args.join(' ')).toBe(0);
    return stdout;
  };

  test('state, runs, log, heartbeat and replay show +07:00 for an Asia/Jakarta pipeline; state --json keeps UTC', async () => {
    await run('define', 'etl', '--schedule', '@daily', '--start', '2026-11-02', '--tz', 'Asia/Jakarta');
    const runId = (await run('start', 'etl', '2026-11-02')).trim();
    expect(await run('heartbeat', runId, '--lease', '2h')).toBe('etl 2026-11-02: lease extended to 2026-11-05T03:00:00+07:00\n');
    await run('succeed', runId);
    const state = await run('state', 'etl');
    expect(state).toMatch(/^2026-11-02 +success .* 2026-11-05T01:00:00\+07:00$/m);
    expect(state).not.toMatch(/\d{2}Z\b/);
    const json = JSON.parse(await run('state', 'etl', '--json')) as { dates: Array<{ finishedAt: string | null }> };
    expect(json.dates[0]?.finishedAt).toBe('2026-11-04T18:00:00.000Z');
    expect(await run('runs', 'etl')).toMatch(/ 2026-11-05T01:00:00\+07:00 +2026-11-05T01:00:00\+07:00 +tester$/m);
    const log = await run('log', 'etl');
    expect(log).toMatch(/^1 +2026-11-05T01:00:00\+07:00 +tester +defined etl/m);
    expect(log).toMatch(/lease until 2026-11-05T03:00:00\+07:00/);
    expect(log).not.toMatch(/\d{2}(\.\d+)?Z\b/);
    const file = join(tempDir(), 'etl.jsonl');
    await run('export', '--out', file);
    expect(await run('replay', file)).toMatch(/^2026-11-02 +success .* 2026-11-05T01:00:00\+07:00$/m);
  });
});
