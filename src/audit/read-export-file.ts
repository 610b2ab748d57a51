import { open } from 'node:fs/promises';
import type { Sha256Hex } from '../../events/hash-chain.js';
import { LedgerError } from '../errors.js';
import type { RawEvent } from '../store/event-store.js';
import { ExportChecker, type ExportHeader } from './export-format.js';

/** Event rows per batch handed on while a file is read: memory follows this, not the file. */
const BATCH_ROWS = 1000;

/**
 * The lines of a file, read as a stream (a 600 MB export is never one string),
 * each with a flag saying whether it is the last one. A line ends at `\n`
 * (a `\r` before it is dropped).
 *
 * Each line is decoded from the bytes on its own. Splitting a decoded chunk
 * (as `readline` does) gives strings that are slices of that 1 MB chunk, and
 * any value cut from a line (an event's hash) then keeps the whole chunk
 * alive: `replay` of one pipeline out of forty kept every chunk its batch of
 * events touched (382 MB peak RSS on a million events).
 *
 * @example
 * for await (const { line, last } of fileLines('ledger.jsonl', 'export file')) …
 */
export async function* fileLines(path: string, what: string): AsyncGenerator<{ line: string; last: boolean }> {
  for await (const { lines, last } of fileLineBatches(path, what)) {
    for (let i = 0; i < lines.length; i++) yield { line: lines[i] as string, last: last && i === lines.length - 1 };
  }
}

/**
 * The same lines as `fileLines`, up to 64 at once, for a caller that takes
 * every line of a large file: one `await` per line (an async generator's
 * step) cost more than decoding the line. `last` marks the
 * batch that ends the file (its one line is the file's last line); no batch is
 * empty, and lines come in the same order and at the same point of the reading.
 *
 * @example
 * for await (const { lines, last } of fileLineBatches('ledger.jsonl', 'export file')) …
 */
export async function* fileLineBatches(path: string, what: string): AsyncGenerator<{ lines: string[]; last: boolean }> {
  let handle;
  try {
    handle = await open(path, 'r');
    if ((await handle.stat()).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
  } catch (error) {
    await handle?.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new LedgerError('notFound.file', `no ${what} at ${path}; check the path`);
    throw new LedgerError('input.unreadableFile', `cannot read ${what} ${path}: ${code ?? (error as Error).message}`);
  }
  // The stream owns the handle from here on and closes it when it ends or is destroyed.
  const stream = handle.createReadStream({ highWaterMark: 1 << 20 });
  try {
    // One line of look-ahead, so the checker can tell a cut-off last line from a garbled one.
    let pending: string | undefined;
    let lines: string[] = [];
    // The bytes of a line not yet ended, as pieces: a long line is joined once, not once per chunk.
    let partial: Buffer[] = [];
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      let start = 0;
      for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
        // A line within the chunk is decoded from it in place: a subarray per line cost as much as the decoding.
        let line: string;
        if (partial.length === 0) {
          line = decodeLine(chunk, start, newline);
        } else {
          const bytes = Buffer.concat([...partial, chunk.subarray(start, newline)]);
          line = decodeLine(bytes, 0, bytes.length);
          partial = [];
        }
        if (pending !== undefined) lines.push(pending);
        pending = line;
        start = newline + 1;
        // Not the whole chunk at once: a reader of the first line alone (the header) would decode 1 MB of lines.
        if (lines.length === LINE_BATCH) {
          yield { lines, last: false };
          lines = [];
        }
      }
      // A copy: a slice of the chunk would keep all of it alive until the line ends.
      if (start < chunk.length) partial.push(Buffer.from(chunk.subarray(start)));
      if (lines.length > 0) {
        yield { lines, last: false };
        lines = [];
      }
    }
    if (partial.length > 0) {
      if (pending !== undefined) yield { lines: [pending], last: false };
      pending = Buffer.concat(partial).toString('utf8');
    }
    if (pending !== undefined) yield { lines: [pending], last: true };
  } finally {
    stream.destroy();
  }
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
/** Lines per batch of `fileLineBatches` at most. */
const LINE_BATCH = 64;

/** The bytes from `from` to `end` as text, without a `\r` that ends them. */
function decodeLine(bytes: Buffer, from: number, end: number): string {
  return bytes.toString('utf8', from, end > from && bytes[end - 1] === CARRIAGE_RETURN ? end - 1 : end);
}

/**
 * Reads an export line by line through `checker`, handing on its event rows
 * in batches; the first bad line throws (`input.badExport`) before any row
 * after it is handed on, and a file that ends without its trailer throws
 * after the last batch. A caller that writes the batches inside a
 * transaction therefore gets all or nothing.
 *
 * @example
 * const checker = new ExportChecker(path, sha256Hex, checkEventSchema);
 * await store.importSealed(checkedExportBatches(path, checker));
 */
export async function* checkedExportBatches(path: string, checker: ExportChecker): AsyncGenerator<RawEvent[]> {
  let batch: RawEvent[] = [];
  for await (const { lines, last } of fileLineBatches(path, 'export file')) {
    for (let i = 0; i < lines.length; i++) {
      const row = checker.line(lines[i] as string, last && i === lines.length - 1);
      if (!row) continue;
      batch.push(row);
      if (batch.length >= BATCH_ROWS) {
        yield batch;
        batch = [];
      }
    }
  }
  checker.end();
  if (batch.length > 0) yield batch;
}

/**
 * The header of an export, read and checked from its first line alone (so
 * `import` can refuse a filtered export before it opens the target ledger).
 *
 * @example
 * if ((await readExportHeader('ledger.jsonl', sha256Hex)).filtered) …
 */
export async function readExportHeader(path: string, sha256: Sha256Hex): Promise<ExportHeader> {
  // Only the first line is read, and it is no event: the event check is never called (and zod not loaded).
  const checker = new ExportChecker(path, sha256, () => {
    throw new Error('readExportHeader: the header line has no event to check');
  });
  for await (const { line } of fileLines(path, 'export file')) {
    checker.line(line);
    break;
  }
  const header = checker.header;
  if (!header) return checker.end().header;
  return header;
}
