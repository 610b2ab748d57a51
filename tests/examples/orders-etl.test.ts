// The shipped example ETL (examples/orders) that `runledger demo` schedules:
// exact figures per date, deterministic output, failure behaviour, validation rules.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, test } from 'vitest';
import {
  formatRupiah,
  parseCsvLine,
  processOrders,
  shopDateOf,
  summaryLine,
  validateRow,
} from '../../examples/orders/orders.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const rawDir = path.join(repoRoot, 'examples/orders/raw');

const tmpRoots: string[] = [];
function tmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'runledger-orders-'));
  tmpRoots.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of tmpRoots) fs.rmSync(dir, { recursive: true, force: true });
});

function etl(args: string[], env: Record<string, string> = {}) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  if (!('RUNLEDGER_DATE' in env)) delete childEnv.RUNLEDGER_DATE;
  if (!('RUNLEDGER_METRICS' in env)) delete childEnv.RUNLEDGER_METRICS;
  const r = spawnSync(process.execPath, ['examples/orders/etl.mjs', ...args], {
    cwd: repoRoot,
    env: childEnv,
    encoding: 'utf8',
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every file under dir, relative path -> bytes. */
function snapshot(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  if (!fs.existsSync(dir)) return out;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out.set(path.relative(dir, full), fs.readFileSync(full));
  }
  return out;
}

const expected = [
  {
    date: '2026-11-02',
    line: '2026-11-02: 7 raw → 4 valid, 2 rejected, 1 duplicate; 3 cities; revenue Rp843,000',
    stats: { rawRows: 7, valid: 4, rejected: 2, duplicates: 1, cities: 3, revenueIdr: 843000 },
    gold: [
      'date,city,orders,items,revenue_idr',
      '2026-11-02,Bandung,1,3,127500',
      '2026-11-02,Jakarta,2,5,366500',
      '2026-11-02,Surabaya,1,1,349000',
    ],
    rejectLines: [5, 8],
  },
  {
    date: '2026-11-03',
    line: '2026-11-03: 5 raw → 4 valid, 1 rejected, 0 duplicates; 4 cities; revenue Rp605,500',
    stats: { rawRows: 5, valid: 4, rejected: 1, duplicates: 0, cities: 4, revenueIdr: 605500 },
    gold: [
      'date,city,orders,items,revenue_idr',
      '2026-11-03,Bandung,1,2,44000',
      '2026-11-03,Denpasar,1,1,349000',
      '2026-11-03,Medan,1,1,42500',
      '2026-11-03,Yogyakarta,1,2,170000',
    ],
    rejectLines: [3],
  },
  {
    date: '2026-11-04',
    line: '2026-11-04: 3 raw → 3 valid, 0 rejected, 0 duplicates; 3 cities; revenue Rp674,000',
    stats: { rawRows: 3, valid: 3, rejected: 0, duplicates: 0, cities: 3, revenueIdr: 674000 },
    gold: [
      'date,city,orders,items,revenue_idr',
      '2026-11-04,Jakarta,1,3,255000',
      '2026-11-04,Makassar,1,2,70000',
      '2026-11-04,Surabaya,1,1,349000',
    ],
    rejectLines: [],
  },
];

describe('orders ETL CLI: figures per date', () => {
  test.each(expected)('$date: $line', ({ date, line, stats, gold, rejectLines }) => {
    const dir = tmpDir();
    const goldDir = path.join(dir, 'gold');
    const rejectsDir = path.join(dir, 'rejects');
    const metricsPath = path.join(dir, 'metrics.json');
    const r = etl(['--date', date, '--raw', rawDir, '--gold', goldDir, '--rejects', rejectsDir], {
      RUNLEDGER_METRICS: metricsPath,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${line}\n`);

    const goldPath = path.join(goldDir, `revenue-by-city-${date}.csv`);
    const rejectsPath = path.join(rejectsDir, `rejects-${date}.csv`);
    expect(JSON.parse(fs.readFileSync(metricsPath, 'utf8'))).toEqual({
      date,
      ...stats,
      output: goldPath,
      rejectsOutput: rejectsPath,
    });
    // Raw rows are exactly valid + rejected + duplicates.
    expect(stats.valid + stats.rejected + stats.duplicates).toBe(stats.rawRows);

    // ONE gold file per date, and its contents add up to the metrics.
    expect(fs.readdirSync(goldDir)).toEqual([`revenue-by-city-${date}.csv`]);
    const goldText = fs.readFileSync(goldPath, 'utf8');
    expect(goldText).toBe(`${gold.join('\n')}\n`);
    const cityRows = gold.slice(1).map((l) => l.split(','));
    expect(cityRows).toHaveLength(stats.cities);
    expect(cityRows.reduce((s, c) => s + Number(c[2]), 0)).toBe(stats.valid);
    expect(cityRows.reduce((s, c) => s + Number(c[4]), 0)).toBe(stats.revenueIdr);

    // The rejects file lists each rejected raw line with a reason.
    const rejects = fs.readFileSync(rejectsPath, 'utf8').trimEnd().split('\n');
    expect(rejects[0]).toBe('date,line,reason,raw');
    expect(rejects.slice(1).map((l) => Number(parseCsvLine(l)[1]))).toEqual(rejectLines);
  });

  test('stdout line and metrics match summaryLine() of the pure module', () => {
    for (const { date, line, stats } of expected) expect(summaryLine(date, stats)).toBe(line);
  });

  test('the date falls back to $RUNLEDGER_DATE; without --rejects no rejects file is written', () => {
    const dir = tmpDir();
    const metricsPath = path.join(dir, 'm.json');
    const r = etl(['--raw', rawDir, '--gold', path.join(dir, 'gold')], {
      RUNLEDGER_DATE: '2026-11-03',
      RUNLEDGER_METRICS: metricsPath,
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${expected[1]!.line}\n`);
    expect(JSON.parse(fs.readFileSync(metricsPath, 'utf8'))).toMatchObject({
      date: '2026-11-03',
      revenueIdr: 605500,
      rejectsOutput: null,
    });
    expect(fs.readdirSync(dir).sort()).toEqual(['gold', 'm.json']);
  });
});

describe('orders ETL CLI: determinism and failures', () => {
  test('re-running writes byte-identical files and leaves no temp files', () => {
    const dir = tmpDir();
    const run = (out: string) => {
      for (const { date } of expected) {
        const r = etl(
          ['--date', date, '--raw', rawDir, '--gold', path.join(out, 'gold'), '--rejects', path.join(out, 'rejects')],
          { RUNLEDGER_METRICS: path.join(out, 'metrics', `${date}.json`) },
        );
        expect(r.status).toBe(0);
      }
      return snapshot(path.join(out, 'gold')).size + snapshot(path.join(out, 'rejects')).size;
    };
    const first = path.join(dir, 'a');
    expect(run(first)).toBe(6);
    const before = snapshot(first);
    const mtimeBefore = fs.statSync(path.join(first, 'gold', 'revenue-by-city-2026-11-02.csv')).mtimeMs;

    expect(run(first)).toBe(6); // same directory: files replaced, same bytes
    const after = snapshot(first);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [name, bytes] of before) expect(after.get(name)!.equals(bytes), name).toBe(true);
    expect([...after.keys()].some((n) => n.endsWith('.tmp'))).toBe(false);
    expect(fs.statSync(path.join(first, 'gold', 'revenue-by-city-2026-11-02.csv')).mtimeMs).toBeGreaterThanOrEqual(
      mtimeBefore,
    );

    // A fresh directory gets the same gold and rejects bytes too.
    const second = path.join(dir, 'b');
    run(second);
    for (const sub of ['gold', 'rejects']) {
      const a = snapshot(path.join(first, sub));
      const b = snapshot(path.join(second, sub));
      expect([...b.keys()].sort()).toEqual([...a.keys()].sort());
      for (const [name, bytes] of a) expect(b.get(name)!.equals(bytes), `${sub}/${name}`).toBe(true);
    }
  });

  test('a missing raw partition fails with exit 1, one stderr line and nothing written', () => {
    const dir = tmpDir();
    const goldDir = path.join(dir, 'gold');
    const metricsPath = path.join(dir, 'metrics.json');
    const r = etl(
      ['--date', '2026-11-05', '--raw', 'examples/orders/raw', '--gold', goldDir, '--rejects', path.join(dir, 'rej')],
      { RUNLEDGER_METRICS: metricsPath },
    );
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'no raw partition for 2026-11-05: examples/orders/raw/orders-2026-11-05.csv does not exist\n',
    );
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  test('a failed run leaves an earlier good gold file untouched', () => {
    const dir = tmpDir();
    const raw = path.join(dir, 'raw');
    const goldDir = path.join(dir, 'gold');
    fs.mkdirSync(raw);
    fs.copyFileSync(path.join(rawDir, 'orders-2026-11-04.csv'), path.join(raw, 'orders-2026-11-04.csv'));
    expect(etl(['--date', '2026-11-04', '--raw', raw, '--gold', goldDir]).status).toBe(0);
    const good = snapshot(goldDir);

    // The partition is re-delivered broken (header lost): the run fails, gold stays as it was.
    fs.writeFileSync(path.join(raw, 'orders-2026-11-04.csv'), 'ORD-1,2026-11-04T09:00:00+07:00,A,Jakarta,X,1,1000\n');
    const r = etl(['--date', '2026-11-04', '--raw', raw, '--gold', goldDir]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^bad raw partition for 2026-11-04: .*header lacks column\(s\) order_id/);
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(snapshot(goldDir)).toEqual(good);
  });

  test.each([
    { label: 'impossible date', args: ['--date', '2026-02-30'], err: /^invalid date "2026-02-30"/ },
    { label: 'date-time instead of date', args: ['--date', '2026-11-02T00:00:00Z'], err: /^invalid date/ },
    { label: 'no date at all', args: [], err: /^missing --date \(or \$RUNLEDGER_DATE\)/ },
    { label: 'unknown flag', args: ['--date', '2026-11-02', '--bogus', 'x'], err: /^unknown argument "--bogus"/ },
  ])('bad usage ($label) exits 2 and writes nothing', ({ args, err }) => {
    const dir = tmpDir();
    const r = etl([...args, '--raw', rawDir, '--gold', path.join(dir, 'gold')], {
      RUNLEDGER_METRICS: path.join(dir, 'm.json'),
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(err);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('validation rules', () => {
  const date = '2026-11-02';
  const base = {
    order_id: 'ORD-1',
    ordered_at: '2026-11-02T10:00:00+07:00',
    customer: 'Siti',
    city: 'Jakarta',
    sku: 'KOPI-GAYO-250',
    qty: '2',
    unit_price_idr: '85000',
  };
  test.each([
    { label: 'a complete row is valid', change: {}, reason: null },
    { label: 'whitespace around values is ignored', change: { city: '  Jakarta ', qty: ' 2' }, reason: null },
    { label: 'UTC timestamp late on the WIB day is inside', change: { ordered_at: '2026-11-02T16:59:59Z' }, reason: null },
    { label: 'missing order_id', change: { order_id: '' }, reason: 'missing order_id' },
    { label: 'malformed order_id', change: { order_id: 'ORD 1' }, reason: 'malformed order_id "ORD 1"' },
    { label: 'missing ordered_at', change: { ordered_at: '' }, reason: 'missing ordered_at' },
    {
      label: 'ordered_at without UTC offset',
      change: { ordered_at: '2026-11-02T10:00:00' },
      reason: 'ordered_at "2026-11-02T10:00:00" is not an ISO 8601 timestamp with a UTC offset',
    },
    {
      label: 'ordered_at not a real time',
      change: { ordered_at: '2026-11-02T25:00:00+07:00' },
      reason: 'ordered_at "2026-11-02T25:00:00+07:00" is not an ISO 8601 timestamp with a UTC offset',
    },
    {
      label: 'ordered_at on the previous day (late arrival)',
      change: { ordered_at: '2026-11-01T23:59:10+07:00' },
      reason: 'ordered_at 2026-11-01T23:59:10+07:00 is outside partition 2026-11-02 (shop date 2026-11-01)',
    },
    {
      label: 'ordered_at in UTC that is already the next WIB day',
      change: { ordered_at: '2026-11-02T17:30:00Z' },
      reason: 'ordered_at 2026-11-02T17:30:00Z is outside partition 2026-11-02 (shop date 2026-11-03)',
    },
    { label: 'missing customer', change: { customer: '' }, reason: 'missing customer' },
    { label: 'missing city', change: { city: '' }, reason: 'missing city' },
    { label: 'blank city', change: { city: '   ' }, reason: 'missing city' },
    { label: 'missing sku', change: { sku: '' }, reason: 'missing sku' },
    { label: 'negative quantity', change: { qty: '-1' }, reason: 'negative qty -1' },
    { label: 'zero quantity', change: { qty: '0' }, reason: 'qty is 0' },
    { label: 'fractional quantity', change: { qty: '1.5' }, reason: 'qty "1.5" is not a whole number' },
    { label: 'missing quantity', change: { qty: '' }, reason: 'missing qty' },
    {
      label: 'non-numeric price (Indonesian thousands dots)',
      change: { unit_price_idr: '35.000' },
      reason: 'non-numeric unit_price_idr "35.000" (expected whole rupiah digits, e.g. 35000)',
    },
    {
      label: 'non-numeric price (currency prefix)',
      change: { unit_price_idr: 'Rp35000' },
      reason: 'non-numeric unit_price_idr "Rp35000" (expected whole rupiah digits, e.g. 35000)',
    },
    {
      label: 'negative price',
      change: { unit_price_idr: '-35000' },
      reason: 'non-numeric unit_price_idr "-35000" (expected whole rupiah digits, e.g. 35000)',
    },
    { label: 'zero price', change: { unit_price_idr: '0' }, reason: 'unit_price_idr is 0' },
    { label: 'missing price', change: { unit_price_idr: '' }, reason: 'missing unit_price_idr' },
  ])('$label', ({ change, reason }) => {
    const result = validateRow({ ...base, ...change }, date);
    if (reason === null) {
      expect(result.ok).toBe(true);
      if (result.ok) {
        expect(result.order.city).toBe('Jakarta');
        expect(result.order.amountIdr).toBe(170000);
      }
    } else {
      expect(result).toEqual({ ok: false, reason });
    }
  });

  const header = 'order_id,ordered_at,customer,city,sku,qty,unit_price_idr';
  const row = (id: string, qty = '1', city = 'Jakarta') => `${id},2026-11-02T10:00:00+07:00,Siti,${city},KOPI,${qty},1000`;

  test.each([
    {
      label: 'an exact re-send of a valid order_id is a duplicate',
      lines: [row('A'), row('A')],
      counts: { rawRows: 2, valid: 1, rejected: 0, duplicates: 1 },
      reasons: [],
    },
    {
      label: 'the same order_id with different values is rejected, not deduplicated',
      lines: [row('A'), row('A', '2')],
      counts: { rawRows: 2, valid: 1, rejected: 1, duplicates: 0 },
      reasons: ['order_id A already used on line 2 with different values'],
    },
    {
      label: 'a corrected re-send after a rejected row is valid',
      lines: [row('A', '-1'), row('A')],
      counts: { rawRows: 2, valid: 1, rejected: 1, duplicates: 0 },
      reasons: ['negative qty -1'],
    },
    {
      label: 'a row with too few fields is rejected',
      lines: [row('A'), 'B,2026-11-02T10:00:00+07:00,Siti,Jakarta'],
      counts: { rawRows: 2, valid: 1, rejected: 1, duplicates: 0 },
      reasons: ['expected 7 fields, got 4'],
    },
    {
      label: 'an unterminated quote is rejected',
      lines: ['C,2026-11-02T10:00:00+07:00,"Toko, CV,Jakarta,KOPI,1,1000'],
      counts: { rawRows: 1, valid: 0, rejected: 1, duplicates: 0 },
      reasons: ['malformed CSV: unterminated quoted field at column 3'],
    },
    {
      label: 'blank lines are not rows; CRLF is accepted',
      lines: [row('A'), '', '   ', row('B', '1', 'Bandung') + '\r'],
      counts: { rawRows: 2, valid: 2, rejected: 0, duplicates: 0 },
      reasons: [],
    },
  ])('$label', ({ lines, counts, reasons }) => {
    const r = processOrders(`${header}\n${lines.join('\n')}\n`, date);
    expect({ rawRows: r.rawRows, valid: r.valid.length, rejected: r.rejected.length, duplicates: r.duplicates.length }).toEqual(
      counts,
    );
    expect(r.rejected.map((x) => x.reason)).toEqual(reasons);
  });
});

describe('helpers', () => {
  test.each([
    { amount: 0, text: 'Rp0' },
    { amount: 999, text: 'Rp999' },
    { amount: 1000, text: 'Rp1,000' },
    { amount: 605500, text: 'Rp605,500' },
    { amount: 843000, text: 'Rp843,000' },
    { amount: 2122500, text: 'Rp2,122,500' },
    { amount: -35000, text: '-Rp35,000' },
  ])('formatRupiah($amount) = $text', ({ amount, text }) => {
    expect(formatRupiah(amount)).toBe(text);
  });

  test('formatRupiah refuses non-integers', () => {
    expect(() => formatRupiah(1.5)).toThrow(TypeError);
    expect(() => formatRupiah(Number.NaN)).toThrow(TypeError);
  });

  test.each([
    { label: 'plain', line: 'a,b,c', fields: ['a', 'b', 'c'] },
    { label: 'empty fields', line: ',,', fields: ['', '', ''] },
    { label: 'quoted comma', line: '1,"Toko Berkah, CV",x', fields: ['1', 'Toko Berkah, CV', 'x'] },
    { label: 'escaped quote', line: '"say ""hi""",2', fields: ['say "hi"', '2'] },
    { label: 'quoted empty last field', line: 'a,""', fields: ['a', ''] },
  ])('parseCsvLine: $label', ({ line, fields }) => {
    expect(parseCsvLine(line)).toEqual(fields);
  });

  test.each([
    { label: 'stray quote', line: 'a,b"c' },
    { label: 'text after closing quote', line: '"a"b,c' },
    { label: 'unterminated quote', line: '"abc' },
  ])('parseCsvLine rejects $label', ({ line }) => {
    expect(() => parseCsvLine(line)).toThrow(SyntaxError);
  });

  test('shopDateOf converts to WIB (UTC+07:00)', () => {
    expect(shopDateOf('2026-11-02T23:59:59+07:00')).toBe('2026-11-02');
    expect(shopDateOf('2026-11-02T17:00:00Z')).toBe('2026-11-03');
    expect(shopDateOf('2026-11-02T08:00:00+09:00')).toBe('2026-11-02'); // 06:00 WIB
    expect(shopDateOf('2026-02-30T10:00:00+07:00')).toBeNull();
  });
});
