// formatTable lays a table out from its cells as they are and tests its text once, falling back to flattening every
// cell only when one holds a control character: the text is the one the flatten-first layout gives, for any cells
// (control characters anywhere, past a cut, line breaks, trailing blanks) and any fit.
import fc from 'fast-check';
import { expect, test } from 'vitest';
import { formatTable, type TableFit } from '../../src/format/format-table.js';
import { hasTerminalControls, terminalText } from '../../src/format/terminal-text.js';

/** formatTable as it was before the one-test layout: every row flattened (when it holds a control) before any width. */
function flattenFirst(header: string[], rows: string[][], fit: TableFit = {}): string {
  const flatCell = (cell: string) => terminalText(cell.includes('\n') ? cell.replace(/[ \t]*(?:\r?\n)+[ \t]*/g, ' ').trim() : cell);
  const flat = rows.map((row) => (hasTerminalControls(row.join(' ')) ? row.map(flatCell) : row));
  const widths = header.map((h) => h.length);
  for (const row of flat) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  const flexible = fit.flexible ?? [];
  if (!fit.wide && flexible.length > 0) {
    if (fit.width === undefined) {
      const cap = fit.maxCell ?? 100;
      for (const i of flexible) widths[i] = Math.min(widths[i] ?? 0, Math.max(cap, header[i]?.length ?? 0));
    } else {
      const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
      while (total() > fit.width) {
        let widest = -1;
        for (const i of flexible) {
          const floor = Math.max(12, header[i]?.length ?? 0);
          if ((widths[i] ?? 0) > floor && (widest < 0 || (widths[i] ?? 0) > (widths[widest] ?? 0))) widest = i;
        }
        if (widest < 0) break;
        widths[widest] = (widths[widest] ?? 0) - Math.max(1, Math.min(total() - fit.width, (widths[widest] ?? 0) - Math.max(12, header[widest]?.length ?? 0)));
      }
    }
  }
  const cut = (text: string, width: number) => (text.length <= width ? text : width <= 1 ? '…' : `${text.slice(0, width - 1).trimEnd()}…`);
  const line = (cells: string[], cutting: readonly number[] | undefined) =>
    cells
      .map((cell, i) => {
        const text = cutting !== undefined && cell.length > (widths[i] ?? cell.length) && cutting.includes(i) ? cut(cell, widths[i] ?? cell.length) : cell;
        return i === cells.length - 1 ? text : `${text.padEnd(widths[i] ?? 0)}  `;
      })
      .join('')
      .trimEnd();
  return [line(header, undefined), ...flat.map((row) => line(row, fit.wide ? undefined : fit.flexible))].map((l) => `${l}\n`).join('');
}

const piece = fc.constantFrom('a', 'etl_orders', ' ', '  ', '\t', '\n', '\r\n', '\r', '\x1b[2J', '\x07', '\x9b', '\u202e', '\u00a0', '\u3000', '…', '-', '2026-11-04', 'é');
const cell = fc.oneof(
  { weight: 4, arbitrary: fc.array(piece, { maxLength: 6 }).map((p) => p.join('')) },
  { weight: 1, arbitrary: fc.tuple(fc.array(piece, { maxLength: 4 }), fc.integer({ min: 0, max: 140 }), fc.array(piece, { maxLength: 4 })).map(([a, n, b]) => `${a.join('')}${'x'.repeat(n)}${b.join('')}`) },
);

test('formatTable gives the flatten-first layout for any cells and fit', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 5 }).chain((columns) =>
        fc.record({
          header: fc.array(fc.constantFrom('A', 'WHAT', 'LAST FAILURE', ''), { minLength: columns, maxLength: columns }),
          rows: fc.array(fc.array(cell, { minLength: 1, maxLength: columns }), { maxLength: 6 }),
          fit: fc.record(
            {
              width: fc.integer({ min: 0, max: 120 }),
              flexible: fc.uniqueArray(fc.integer({ min: 0, max: columns - 1 })),
              maxCell: fc.integer({ min: 0, max: 30 }),
              wide: fc.boolean(),
            },
            { requiredKeys: [] },
          ),
        }),
      ),
      ({ header, rows, fit }) => {
        const text = formatTable(header, rows, fit);
        expect(text).toBe(flattenFirst(header, rows, fit));
        // What status writes as it is: no control character but the line feeds that end its lines.
        expect(terminalText(text, { keepLines: true })).toBe(text);
        expect(text.split('\n')).toHaveLength(rows.length + 2);
      },
    ),
    { numRuns: 2000 },
  );
});

test('paddings longer than the kept texts of spaces (a column widened past 256 by a long cell) lay out as padEnd does, twice over', () => {
  const rows = [
    ['x'.repeat(300), 'b', 'c'],
    ['a', 'y'.repeat(1000), 'c'],
    ['', '', ''],
    ['short', 'z'.repeat(255), 'end'],
  ];
  for (const fit of [{ wide: true }, {}, { flexible: [0, 1], maxCell: 400 }] as TableFit[]) {
    expect(formatTable(['A', 'B', 'C'], rows, fit)).toBe(flattenFirst(['A', 'B', 'C'], rows, fit));
    expect(formatTable(['A', 'B', 'C'], rows, fit)).toBe(flattenFirst(['A', 'B', 'C'], rows, fit));
  }
});

test('a line of no cells (an empty header, an empty row) is an empty line, not a RangeError', () => {
  expect(formatTable([], [])).toBe('\n');
  expect(formatTable(['A', 'B'], [[]])).toBe('A  B\n\n');
});
