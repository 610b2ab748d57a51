import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { acceptanceLedger, countEvents, run, tempDir } from '../audit/cli-session.js';

// Files of a few thousand events, so every streamed path crosses several batches (1,000 rows each).
// The million-event run with its memory cap is `npm run test:scale` (scripts/scale/scale-test.mjs).
const generator = new URL('../../scripts/scale/generate-export.mjs', import.meta.url).pathname;
const bin = new URL('../../bin/runledger.js', import.meta.url).pathname;

describe('streamed import, replay and log', () => {
  let dir: string;
  let file: string;
  let ledger: string;

  beforeAll(async () => {
    dir = tempDir();
    file = join(dir, 'generated.jsonl');
    ledger = join(dir, 'ledger.db');
    execFileSync(process.execPath, [generator, file, '2501', '3']);
    expect((await run(['--db', ledger, 'import', file])).code).toBe(0);
  }, 60_000);

  test('a bad line after two written batches rolls the whole import back and leaves no ledger file', async () => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const at = lines.findIndex((line, i) => i >= 2400 && line.includes('"rows":'));
    lines[at] = (lines[at] as string).replace('"rows":', '"rowz":');
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, lines.join('\n'));
    const target = join(dir, 'bad.db');
    const r = await run(['--db', target, 'import', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.jsonl line 240\d: the event's hash does not match its content.*nothing was imported\n$/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(target)).toBe(false);
  });

  test('an import into an existing empty ledger that fails half-way leaves it empty', async () => {
    const lines = readFileSync(file, 'utf8').split('\n');
    const cut = join(dir, 'cut.jsonl');
    writeFileSync(cut, `${lines.slice(0, 2200).join('\n')}\n`);
    const target = join(dir, 'empty.db');
    expect((await run(['--db', target, 'define', 'x', '--schedule', '@daily', '--start', '2026-11-01'])).code).toBe(0);
    const full = await run(['--db', target, 'import', cut]);
    expect(full.code).toBe(3);
    expect(full.stderr).toContain('already holds 1 events');
    const fresh = join(dir, 'fresh.db');
    const r = await run(['--db', fresh, 'import', cut]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('cut.jsonl line 2201: the file ends without its trailer line');
    expect(existsSync(fresh)).toBe(false);
  });

  test('the imported ledger holds every event and replay reads the file in the same state as the ledger', async () => {
    expect(countEvents(ledger)).toBe(2501);
    const now = JSON.parse(readFileSync(file, 'utf8').split('\n')[0] as string).exportedAt as string;
    const replayed = await run(['--now', now, 'replay', file, '--pipeline', 'scale_001', '--json']);
    const state = await run(['--db', ledger, '--now', now, 'state', 'scale_001', '--json']);
    expect(replayed.code).toBe(0);
    // Written in pieces, the same text as one JSON.stringify of the whole document.
    expect(replayed.stdout).toBe(`${JSON.stringify(JSON.parse(replayed.stdout), null, 2)}\n`);
    expect(state.stdout).toBe(`${JSON.stringify(JSON.parse(state.stdout), null, 2)}\n`);
    expect(JSON.parse(replayed.stdout).dates).toEqual(JSON.parse(state.stdout).dates);
    expect(JSON.parse(state.stdout).dates.length).toBeGreaterThan(400);
  });

  test('replay without --pipeline names the pipelines of the file', async () => {
    const r = await run(['replay', file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the file holds pipelines scale_000, scale_001, scale_002; pick one with --pipeline');
  });

  test('log --json streams one document equal to every event; --jsonl one event per line', async () => {
    const json = await run(['--db', ledger, 'log', '--json']);
    const doc = JSON.parse(json.stdout) as { events: Array<{ position: number }> };
    expect(doc.events.map((e) => e.position)).toEqual(Array.from({ length: 2501 }, (_, i) => i + 1));
    // The same text JSON.stringify(…, null, 2) gives for the whole document.
    expect(json.stdout).toBe(`${JSON.stringify(doc, null, 2)}\n`);
    const jsonl = await run(['--db', ledger, 'log', '--jsonl']);
    const lines = jsonl.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2501);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual(doc.events);
    const empty = await run(['--db', ledger, 'log', '--json', '--type', 'RunCleared']);
    expect(JSON.parse(empty.stdout)).toEqual({ events: [] });
  });

  test('log as a table lists every event under one header', async () => {
    const r = await run(['--db', ledger, 'log']);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2502);
    expect(lines.filter((l) => l.startsWith('POS '))).toHaveLength(1);
    expect(lines[2501]).toMatch(/^2501 /);
  });

  test('log --json refuses an unknown run before writing anything', async () => {
    const r = await run(['--db', ledger, 'log', '--json', '--run', 'NOPE']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('');
  });
});

describe('export files', () => {
  let dir: string;
  let db: string;

  beforeAll(async () => {
    ({ dir, db } = await acceptanceLedger());
  });

  test('an export whose trailer was rewritten after its last events were cut is refused: the header names the head too', async () => {
    const out = join(dir, 'ledger.jsonl');
    expect((await run(['--db', db, 'export', '--out', out])).code).toBe(0);
    const lines = readFileSync(out, 'utf8').trimEnd().split('\n');
    const last = JSON.parse(lines.at(-3) as string) as { hash: string; event: { position: number } };
    const cut = [...lines.slice(0, -2), JSON.stringify({ format: 'runledger-export-end', events: last.event.position, head: { position: last.event.position, hash: last.hash } })];
    const edited = join(dir, 'cut.jsonl');
    writeFileSync(edited, `${cut.join('\n')}\n`);
    const r = await run(['--db', join(dir, 'copy.db'), 'import', edited]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is not the header's ledger head 10:");
    expect((await run(['replay', edited])).code).toBe(2);
  });

  test('export --out over an existing 0600 file keeps its mode', async () => {
    const out = join(dir, 'private.jsonl');
    writeFileSync(out, 'old');
    chmodSync(out, 0o600);
    expect((await run(['--db', db, 'export', '--out', out])).code).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    expect(readFileSync(out, 'utf8')).toContain('runledger-export-end');
  });

  test.each([
    ['export', ['export']],
    ['log --json', ['log', '--json']],
    ['state --json', ['state', 'etl_orders', '--json']],
  ])('%s to a full disk (/dev/full) is one line naming ENOSPC, exit 1, and no success line', (_label, args) => {
    const r = spawnSync('/bin/sh', ['-c', `"${process.execPath}" "${bin}" --db "${db}" --now 2026-11-05T01:00:00+07:00 ${args.join(' ')} > /dev/full`], { encoding: 'utf8' });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^runledger: cannot write the output to stdout \(ENOSPC, no space left on the device\); the output is incomplete[^\n]*\n$/);
    expect(r.stderr).not.toContain('exported');
  });
});
