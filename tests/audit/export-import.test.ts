import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, test } from 'vitest';
import { acceptanceSession, countEvents, rawRows, run, tempDir } from './cli-session.js';

describe('export and import', () => {
  let dir: string;
  let source: string;
  let exported: string;
  let lines: string[];

  beforeAll(async () => {
    dir = tempDir();
    source = join(dir, 'ledger.db');
    exported = join(dir, 'ledger.jsonl');
    await acceptanceSession(source);
    const r = await run(['--db', source, 'export', '--out', exported]);
    expect(r.code).toBe(0);
    lines = readFileSync(exported, 'utf8').trimEnd().split('\n');
  });

  test('the export is a header, one line per event with the stored payload verbatim, and a trailer with the head', async () => {
    const rows = await rawRows(source);
    expect(lines).toHaveLength(rows.length + 2);
    expect(JSON.parse(lines[0] as string)).toMatchObject({ format: 'runledger-export', version: 1, filtered: false, pipeline: null, ledgerHead: { position: 10 } });
    rows.forEach((row, i) => expect(lines[i + 1]).toBe(`{"prevHash":"${row.prevHash}","hash":"${row.hash}","event":${row.payload}}`));
    expect(JSON.parse(lines.at(-1) as string)).toEqual({ format: 'runledger-export-end', events: 10, head: { position: 10, hash: rows.at(-1)?.hash } });
  });

  test('export without --out writes the same lines to stdout', async () => {
    const r = await run(['--db', source, 'export']);
    expect(r.stdout).toBe(readFileSync(exported, 'utf8'));
    expect(r.stderr).toContain('exported 10 events');
  });

  test('import into an empty ledger gives the same positions, bytes, head hash and state', async () => {
    const target = join(tempDir(), 'copy.db');
    const imported = await run(['--db', target, 'import', exported, '--json']);
    expect(imported.code).toBe(0);
    const [a, b] = [await rawRows(source), await rawRows(target)];
    expect(b).toEqual(a);
    const verifyA = JSON.parse((await run(['--db', source, 'verify', '--json'])).stdout) as { head: unknown };
    const verifyB = JSON.parse((await run(['--db', target, 'verify', '--json'])).stdout) as { head: unknown };
    expect(verifyB.head).toEqual(verifyA.head);
    expect(JSON.parse(imported.stdout)).toEqual({ imported: 10, head: verifyA.head });
    const stateA = await run(['--db', source, 'state', 'etl_orders', '--json']);
    const stateB = await run(['--db', target, 'state', 'etl_orders', '--json']);
    expect(stateB.stdout).toBe(stateA.stdout);
    // The imported ledger is a working ledger: it takes new events on the same chain.
    expect((await run(['--db', target, 'start', 'etl_orders', '2026-11-04'])).code).toBe(0);
    expect((await run(['--db', target, 'verify'])).code).toBe(0);
  });

  test('import into a ledger that holds events is refused, exit 3, nothing written', async () => {
    const r = await run(['--db', source, 'import', exported]);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('empty ledger');
    expect(countEvents(source)).toBe(10);
  });

  const damaged: Array<{ label: string; edit: (lines: string[]) => string; line: number; says: RegExp }> = [
    { label: 'truncated mid-line', edit: (l) => l.join('\n').slice(0, -40), line: 12, says: /cut short|truncated/ },
    { label: 'truncated at a line end (no trailer)', edit: (l) => l.slice(0, 7).join('\n') + '\n', line: 8, says: /without its trailer/ },
    { label: 'garbled', edit: (l) => l.map((x, i) => (i === 4 ? x.replace('"event":{', '"event":{{') : x)).join('\n'), line: 5, says: /not JSON/ },
    { label: 'an altered event', edit: (l) => l.map((x, i) => (i === 5 ? x.replace('"rows":5', '"rows":6') : x)).join('\n'), line: 6, says: /hash does not match/ },
    { label: 'reordered', edit: (l) => [l[0], l[1], l[3], l[2], ...l.slice(4)].join('\n'), line: 3, says: /out of order/ },
    { label: 'a line removed', edit: (l) => [...l.slice(0, 6), ...l.slice(7)].join('\n'), line: 7, says: /missing or out of order/ },
    { label: 'a wrong trailer count', edit: (l) => [...l.slice(0, -1), (l.at(-1) as string).replace('"events":10', '"events":11')].join('\n'), line: 12, says: /trailer says 11/ },
    { label: 'no header', edit: (l) => l.slice(1).join('\n'), line: 1, says: /not a runledger export/ },
    { label: 'a newer format version', edit: (l) => [(l[0] as string).replace('"version":1', '"version":2'), ...l.slice(1)].join('\n'), line: 1, says: /newer/ },
    { label: 'an event of an unknown type', edit: (l) => l.map((x, i) => (i === 1 ? x.replace('"PipelineDefined"', '"PipelineDeleted"') : x)).join('\n'), line: 2, says: /hash does not match|unknown event type/ },
    { label: 'empty', edit: () => '', line: 1, says: /empty/ },
  ];

  test.each(damaged)('a file $label is refused with its line number, exit 2, and nothing is written', async ({ edit, line, says }) => {
    const bad = join(tempDir(), 'bad.jsonl');
    writeFileSync(bad, edit(lines));
    const target = join(tempDir(), 'target.db');
    const r = await run(['--db', target, 'import', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`line ${line}:`);
    expect(r.stderr).toMatch(says);
    expect(r.stderr).toContain('nothing was imported');
    expect(existsSync(target)).toBe(false);
  });

  test('a filtered export is refused by import (its chain has gaps) but replays', async () => {
    const filtered = join(tempDir(), 'one.jsonl');
    expect((await run(['--db', source, 'export', '--pipeline', 'etl_orders', '--out', filtered])).code).toBe(0);
    expect(JSON.parse(readFileSync(filtered, 'utf8').split('\n')[0] as string)).toMatchObject({ filtered: true, pipeline: 'etl_orders' });
    const target = join(tempDir(), 'target.db');
    const r = await run(['--db', target, 'import', filtered]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('replay');
    expect(existsSync(target)).toBe(false);
  });

  test('export of an unknown pipeline is not found, exit 4', async () => {
    const r = await run(['--db', source, 'export', '--pipeline', 'nope']);
    expect(r.code).toBe(4);
  });

  test('import of a file that does not exist is not found, exit 4', async () => {
    const r = await run(['--db', join(tempDir(), 't.db'), 'import', join(dir, 'missing.jsonl')]);
    expect(r.code).toBe(4);
  });
});
