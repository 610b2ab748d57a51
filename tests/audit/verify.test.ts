import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { parseHead, verifyChain, type VerifyReport } from '../../src/audit/verify-chain.js';
import { sha256Hex } from '../../src/store/seal-events.js';
import { openMemoryLedger, recordRows } from '../../src/testing/index.js';
import { acceptanceSession, rawDb, run, tempDir } from './cli-session.js';
import { copyFileSync } from 'node:fs';

/** S14 on a real SQLite file: someone drops the S1 triggers and edits the table directly. */
describe('verify (S14)', () => {
  let pristine: string;
  let head: { position: number; hash: string };

  beforeAll(async () => {
    pristine = join(tempDir(), 'ledger.db');
    await acceptanceSession(pristine);
    const r = await run(['--db', pristine, 'verify', '--json']);
    head = (JSON.parse(r.stdout) as VerifyReport).head;
  });

  /** A copy of the acceptance ledger with the triggers gone, edited by `tamper`. */
  function tampered(tamper: (db: ReturnType<typeof rawDb>) => void): string {
    const path = join(tempDir(), 'tampered.db');
    copyFileSync(pristine, path);
    const db = rawDb(path);
    db.exec('DROP TRIGGER events_are_immutable; DROP TRIGGER events_are_never_deleted;');
    tamper(db);
    db.close();
    return path;
  }

  test('an untouched ledger verifies: ok, every event, the head', async () => {
    const r = await run(['--db', pristine, 'verify', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ ok: true, events: 10, firstBadPosition: null, head: { position: 10, hash: expect.stringMatching(/^[0-9a-f]{64}$/) }, problem: null, meta: { ok: true, problem: null } });
    const readable = await run(['--db', pristine, 'verify']);
    expect(readable.stdout).toContain(`head: 10:${head.hash}`);
  });

  test('when one byte of one event is changed then verify exits 5 and names that position', async () => {
    const path = tampered((db) => {
      const { payload } = db.prepare('SELECT payload FROM events WHERE position = 5').get() as { payload: string };
      db.prepare('UPDATE events SET payload = ? WHERE position = 5').run(payload.replace('"rows":5', '"rows":6'));
    });
    const json = await run(['--db', path, 'verify', '--json']);
    expect(json.code).toBe(5);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, events: 4, firstBadPosition: 5, head: { position: 4 } });
    const readable = await run(['--db', path, 'verify']);
    expect(readable.code).toBe(5);
    expect(readable.stderr).toMatch(/position 5: .*altered/);
    expect(readable.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('when an event and its hash are both rewritten then the next link breaks', async () => {
    const path = tampered((db) => {
      const row = db.prepare('SELECT payload, prev_hash FROM events WHERE position = 3').get() as { payload: string; prev_hash: string };
      const payload = row.payload.replace('"rows":7', '"rows":70');
      db.prepare('UPDATE events SET payload = ?, hash = ? WHERE position = 3').run(payload, sha256Hex(row.prev_hash + payload));
    });
    const r = await run(['--db', path, 'verify', '--json']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ firstBadPosition: 4, problem: expect.stringContaining('prevHash') });
  });

  test('when a middle event is deleted then verify names the gap', async () => {
    const path = tampered((db) => db.prepare('DELETE FROM events WHERE position = 7').run());
    const r = await run(['--db', path, 'verify', '--json']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, firstBadPosition: 7, problem: expect.stringContaining('removed') });
  });

  test('when two payloads are swapped then verify names the first', async () => {
    const path = tampered((db) => {
      const a = db.prepare('SELECT payload FROM events WHERE position = 4').get() as { payload: string };
      const b = db.prepare('SELECT payload FROM events WHERE position = 6').get() as { payload: string };
      db.prepare('UPDATE events SET payload = ? WHERE position = 4').run(b.payload);
      db.prepare('UPDATE events SET payload = ? WHERE position = 6').run(a.payload);
    });
    const r = await run(['--db', path, 'verify', '--json']);
    expect(JSON.parse(r.stdout)).toMatchObject({ firstBadPosition: 4 });
  });

  test('when the last event is deleted then only a recorded head notices', async () => {
    const path = tampered((db) => db.prepare('DELETE FROM events WHERE position = 10').run());
    const alone = await run(['--db', path, 'verify', '--json']);
    expect(alone.code).toBe(0);
    expect(JSON.parse(alone.stdout)).toMatchObject({ ok: true, events: 9 });
    const against = await run(['--db', path, 'verify', '--json', '--expect-head', `${head.position}:${head.hash}`]);
    expect(against.code).toBe(5);
    expect(JSON.parse(against.stdout)).toMatchObject({ ok: false, firstBadPosition: 10, problem: expect.stringContaining('removed from its end') });
    const alias = await run(['--db', path, 'verify', '--head', `${head.position}:${head.hash}`]);
    expect(alias.code).toBe(5);
  });

  test('a recorded head still passes after later appends', async () => {
    const r = await run(['--db', pristine, 'verify', '--expect-head', `9:${'0'.repeat(64)}`, '--json']);
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ firstBadPosition: 9, problem: expect.stringContaining('rewritten') });
    const ok = await run(['--db', pristine, 'verify', '--expect-head', `${head.position}:${head.hash}`]);
    expect(ok.code).toBe(0);
  });

  test('a malformed --expect-head is bad input, exit 2', async () => {
    const r = await run(['--db', pristine, 'verify', '--expect-head', '10:abc']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('<position>:<hash>');
  });

  test('verify of a ledger that does not exist is not found, exit 4', async () => {
    const r = await run(['--db', join(tempDir(), 'none.db'), 'verify']);
    expect(r.code).toBe(4);
  });
});

describe('verifyChain', () => {
  const rows = recordRows([
    { type: 'PipelineDefined', schemaVersion: 1, data: { pipeline: 'p', schedule: '@daily', timetable: 'interval', timezone: 'UTC', start: '2026-11-02T00:00:00Z', end: null, catchup: true, maxActiveRuns: 1, leaseMs: 3_600_000 } },
  ]);
  async function* batches(...list: Array<typeof rows>) {
    for (const b of list) yield b;
  }

  test.each([
    { label: 'an empty ledger is ok with the genesis head', input: [], ok: true, bad: null },
    { label: 'a whole chain is ok', input: rows, ok: true, bad: null },
    { label: 'a chain that starts at 2 misses position 1', input: rows.map((r) => ({ ...r, position: 2 })), ok: false, bad: 1 },
    { label: 'a payload that is not JSON is named', input: rows.map((r) => ({ ...r, payload: r.payload.slice(0, -1) })), ok: false, bad: 1 },
  ])('$label', async ({ input, ok, bad }) => {
    const report = await verifyChain(batches(input), { sha256: sha256Hex });
    expect(report.ok).toBe(ok);
    expect(report.firstBadPosition).toBe(bad);
  });

  test('an in-memory ledger verifies like a file', async () => {
    const ledger = openMemoryLedger({ clock: () => Date.parse('2026-11-05T00:00:00Z') });
    await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-02' });
    const run = await ledger.start({ pipeline: 'p', date: '2026-11-02' });
    await ledger.succeed({ runId: run.runId });
    const report = await verifyChain(ledger.store.readRaw(), { sha256: sha256Hex });
    expect(report).toEqual({ ok: true, events: 3, firstBadPosition: null, head: await ledger.store.head(), problem: null });
  });

  test('parseHead reads position:hash and nothing else', () => {
    expect(parseHead(`3:${'a'.repeat(64)}`)).toEqual({ position: 3, hash: 'a'.repeat(64) });
    expect(parseHead('3')).toBeNull();
    expect(parseHead(`x:${'a'.repeat(64)}`)).toBeNull();
  });
});
