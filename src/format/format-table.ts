import { hasTerminalControls, terminalText } from './terminal-text.js';

/**
 * How a table fits the screen. `width`: the terminal's columns (undefined off a terminal or with `--wide`);
 * `flexible`: the columns that give way, by index (free text: an error, a sentence, a reason), each cut with "…";
 * `maxCell`: the most characters a flexible cell keeps without a width (off a terminal), unless `wide`.
 */
export type TableFit = { width?: number | undefined; flexible?: readonly number[]; maxCell?: number; wide?: boolean };

/** Flexible cells never shrink below this, so a narrow terminal still shows the start of each. */
const MIN_FLEXIBLE = 12;
/** What a flexible cell keeps off a terminal (a pipe, a file, CI), where there is no width to fit. */
export const DEFAULT_MAX_CELL = 100;

/**
 * A plain text table: columns padded to their widest cell, a header row, no
 * colour (so it reads the same in a terminal, a log file and a CI job). Every
 * cell is one line (a newline in a cell would break the row); with a `fit`, the
 * flexible columns are cut so the table fits the terminal.
 *
 * @example
 * formatTable(['DATE', 'STATUS'], [['2026-11-02', 'success']])
 * formatTable(['POS', 'WHAT', 'WHY'], rows, { width: process.stdout.columns, flexible: [1, 2] })
 */
export function formatTable(header: string[], rows: string[][], fit: TableFit = {}): string {
  // Nearly every table has no control character in any cell: it is laid out from its cells as they are and tested
  // once, whole. A table with one is laid out again from its cells made flat (`flatCell`), as every table once was.
  return layOut(header, rows, fit, true) ?? (layOut(header, flatRows(rows), fit, false) as string);
}

/**
 * The table's text; with `test`, undefined when a cell holds a control character. What the lines show of every cell
 * is tested in one pass over them joined by spaces; a cell cut to its column is tested whole when it is cut, so a
 * control character past the cut is found too. Lines joined once (no string built a cell at a time, then flattened
 * line by line).
 */
function layOut(header: string[], rows: string[][], fit: TableFit, test: boolean): string | undefined {
  const widths = fitWidths(header, columnWidths(header, rows), fit);
  const flexible = fit.wide ? undefined : fit.flexible;
  const lines = new Array<string>(rows.length + 2);
  lines[0] = tableLine(header, widths) as string;
  for (let r = 0; r < rows.length; r++) {
    const line = tableLine(rows[r] as string[], widths, flexible, test);
    if (line === undefined) return undefined;
    lines[r + 1] = line;
  }
  // The text ends with a line feed: the last line is empty.
  lines[rows.length + 1] = '';
  if (test && hasTerminalControls(lines.join(' '))) return undefined;
  return lines.join('\n');
}

/** Every cell as `flatCell` gives it; rows without a control character in any cell (nearly all) kept as they are. */
function flatRows(rows: string[][]): string[][] {
  const flat = new Array<string[]>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as string[];
    // One test of the row's cells joined by a space (not a control character) instead of one per cell.
    flat[r] = hasTerminalControls(row.join(' ')) ? row.map(flatCell) : row;
  }
  return flat;
}

/**
 * A cell as one line a terminal shows as text: a line end in it becomes a space, and every other control
 * character its visible escape (`terminalText`), before any width is measured or any cell cut.
 */
function flatCell(cell: string): string {
  // Only line ends (LF, CRLF) are layout; a carriage return alone overwrites the line on a terminal, so it is shown as `\r`.
  return terminalText(cell.includes('\n') ? cell.replace(/[ \t]*(?:\r?\n)+[ \t]*/g, ' ').trim() : cell);
}

/** The widest cell per column; a loop, not `Math.max(...cells)`, which overflows the stack past ~100,000 rows. */
function columnWidths(header: string[], rows: string[][]): number[] {
  const widths = header.map((h) => h.length);
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const length = (row[i] as string).length;
      if (!(length <= (widths[i] ?? 0))) widths[i] = length;
    }
  }
  return widths;
}

/** Column widths after the flexible ones gave way: to `maxCell` each off a terminal, then the widest first until the table fits `width`. */
function fitWidths(header: string[], natural: number[], fit: TableFit): number[] {
  const widths = [...natural];
  const flexible = fit.flexible ?? [];
  if (fit.wide || flexible.length === 0) return widths;
  if (fit.width === undefined) {
    const cap = fit.maxCell ?? DEFAULT_MAX_CELL;
    for (const i of flexible) widths[i] = Math.min(widths[i] ?? 0, Math.max(cap, header[i]?.length ?? 0));
    return widths;
  }
  const total = () => widths.reduce((sum, w) => sum + w, 0) + 2 * (widths.length - 1);
  while (total() > fit.width) {
    // The widest flexible column still above its floor gives one character at a time (a fair share when two are wide).
    let widest = -1;
    for (const i of flexible) {
      const floor = Math.max(MIN_FLEXIBLE, header[i]?.length ?? 0);
      if ((widths[i] ?? 0) > floor && (widest < 0 || (widths[i] ?? 0) > (widths[widest] ?? 0))) widest = i;
    }
    if (widest < 0) break;
    widths[widest] = (widths[widest] ?? 0) - Math.max(1, Math.min(total() - fit.width, (widths[widest] ?? 0) - Math.max(MIN_FLEXIBLE, header[widest]?.length ?? 0)));
  }
  return widths;
}

/**
 * One line: each cell but the last padded to its column and two spaces, a flexible cell longer than its column cut
 * (undefined when `test` and a cut cell holds a control character), no space at the end.
 */
function tableLine(cells: string[], widths: number[], flexible?: readonly number[], test = false): string | undefined {
  const last = cells.length - 1;
  // The padded cells joined once: one flat string, where adding them up one by one made a tree of pieces that every
  // later join walked again.
  // Each cell but the last is followed by its padding, one of a few texts of spaces made once: a padded copy of each
  // cell (and a copy of that with the two spaces) was garbage made 16 times a line.
  const parts = LINE_PARTS;
  // A line of no cells (an empty header or row) is an empty line, as before; its length of -1 would throw.
  parts.length = Math.max(0, 2 * cells.length - 1);
  let text = '';
  for (let i = 0; i <= last; i++) {
    const cell = cells[i] as string;
    // The column's width and the cell's length read once each (a line of `status` over 1,000 pipelines is nine cells).
    const width = widths[i];
    let length = cell.length;
    text = cell;
    if (flexible !== undefined && length > (width ?? length) && flexible.includes(i)) {
      if (test && hasTerminalControls(cell)) return undefined;
      text = cut(cell, width ?? length);
      length = text.length;
    }
    parts[2 * i] = text;
    if (i === last) break;
    const short = (width ?? 0) - length;
    parts[2 * i + 1] = SPACES[short > 0 ? short + 2 : 2] ?? spaces(short > 0 ? short + 2 : 2);
  }
  const line = parts.join('');
  // A line that ends in a printable ASCII character has no space to trim (trimEnd would copy it first). A trimmed
  // line is tested before its trim, which would drop a tab or a line break at its end from the test.
  const end = text.length === 0 ? 0x20 : text.charCodeAt(text.length - 1);
  if (end > 0x20 && end < 0x7f) return line;
  return test && hasTerminalControls(line) ? undefined : line.trimEnd();
}

/** The parts of the line `tableLine` is making, one list for every line (a line is made start to end, nothing between). */
const LINE_PARTS: string[] = [];

/**
 * `count` spaces (`padEnd`'s padding and the two between columns), each length up to 256 made once (`SPACES`); a
 * longer padding (a column widened by a long cell, `--wide`) is made each time, so no process keeps every length of it.
 */
function spaces(count: number): string {
  const text = ' '.repeat(count);
  if (count <= 256) SPACES[count] = text;
  return text;
}
const SPACES: string[] = [];

/** `text` cut to `width` characters, the last one "…" when anything was cut. */
export function cut(text: string, width: number): string {
  if (text.length <= width) return text;
  return width <= 1 ? '…' : `${text.slice(0, width - 1).trimEnd()}…`;
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
  readonly #fit: TableFit;
  #sample: string[][] | null = [];
  #widths: number[] = [];

  constructor(header: string[], write: (text: string) => void, fit: TableFit = {}) {
    this.#header = header;
    this.#write = write;
    this.#fit = fit;
  }

  add(row: string[]): void {
    if (this.#sample === null) return this.#write(`${tableLine(row.map(flatCell), this.#widths, this.#fit.wide ? undefined : this.#fit.flexible) as string}\n`);
    this.#sample.push(row);
    if (this.#sample.length >= SAMPLE_ROWS) this.#flushSample();
  }

  end(): void {
    if (this.#sample !== null) this.#flushSample();
  }

  #flushSample(): void {
    const sample = this.#sample ?? [];
    this.#sample = null;
    this.#widths = fitWidths(this.#header, columnWidths(this.#header, sample.map((row) => row.map(flatCell))), this.#fit);
    this.#write(formatTable(this.#header, sample, this.#fit));
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

/**
 * The fit of a command's table: the terminal's width when stdout is one, nothing cut with `--wide`.
 *
 * @example
 * formatTable(header, rows, tableFit(ctx.deps.columns, opts.wide, [4]))
 */
export function tableFit(columns: number | undefined, wide: boolean | undefined, flexible: readonly number[]): TableFit {
  return { width: columns, flexible, wide: wide ?? false };
}
