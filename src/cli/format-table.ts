/**
 * A plain text table: columns padded to their widest cell, a header row, no
 * colour (so it reads the same in a terminal, a log file and a CI job).
 *
 * @example
 * formatTable(['DATE', 'STATUS'], [['2026-11-02', 'success']])
 */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = columnWidths(header, rows);
  return [tableLine(header, widths), ...rows.map((row) => tableLine(row, widths))].join('\n') + '\n';
}

/** The widest cell per column; a loop, not `Math.max(...cells)`, which overflows the stack past ~100,000 rows. */
function columnWidths(header: string[], rows: string[][]): number[] {
  const widths = header.map((h) => h.length);
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return widths;
}

function tableLine(cells: string[], widths: number[]): string {
  return cells
    .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
    .join('  ')
    .trimEnd();
}

/** Rows whose widths set the columns of a streamed table; later rows keep those widths (a longer cell pushes its line). */
const SAMPLE_ROWS = 1000;

/**
 * `formatTable` for a listing of any length: rows are written as they come,
 * the column widths taken from the first 1,000 rows, so a short listing looks
 * exactly like `formatTable` and a long one never sits in memory.
 *
 * @example
 * const table = new StreamingTable(['POS', 'WHAT'], (text) => process.stdout.write(text));
 * table.add(['1', 'defined etl_orders']); table.end();
 */
export class StreamingTable {
  readonly #header: string[];
  readonly #write: (text: string) => void;
  #sample: string[][] | null = [];
  #widths: number[] = [];

  constructor(header: string[], write: (text: string) => void) {
    this.#header = header;
    this.#write = write;
  }

  add(row: string[]): void {
    if (this.#sample === null) return this.#write(`${tableLine(row, this.#widths)}\n`);
    this.#sample.push(row);
    if (this.#sample.length >= SAMPLE_ROWS) this.#flushSample();
  }

  end(): void {
    if (this.#sample !== null) this.#flushSample();
  }

  #flushSample(): void {
    const sample = this.#sample ?? [];
    this.#sample = null;
    this.#widths = columnWidths(this.#header, sample);
    this.#write(formatTable(this.#header, sample));
  }
}

/** A compact one-line view of a metrics object: `rows=7 valid=4 …`. */
export function formatMetrics(metrics: Record<string, unknown> | null): string {
  if (!metrics) return '';
  return Object.entries(metrics)
    .filter(([, v]) => v === null || ['string', 'number', 'boolean'].includes(typeof v))
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');
}
