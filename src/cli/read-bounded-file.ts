import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { formatBytes, MAX_SIZE_CAP_BYTES } from '../../events/limits.js';
import { LedgerError, type LedgerErrorCode } from '../errors.js';

/** How much the CLI reads of a file it is given: more is refused, read no further than one byte past it. */
export const READ_LIMITS = {
  /** `--metrics @file` and `define --tasks`: the hard maximum of any metrics cap. */
  document: MAX_SIZE_CAP_BYTES,
  /** `ingest` events and `replay --expect` state documents. */
  bulk: 256 * 1024 * 1024,
} as const;

interface ReadOptions {
  /** What the file is, for messages: "metrics file", "--tasks file". */
  what: string;
  maxBytes: number;
  /** The code of a file that cannot be read (exit 2). */
  unreadable: LedgerErrorCode;
  /** The code of a missing file (default: `unreadable`). */
  notFound?: LedgerErrorCode;
}

/**
 * Reads a file the user named, without trusting it: a directory, a device or a FIFO (a path to /dev/zero
 * would never end) is refused, and so is a file over `maxBytes`, read no further than one byte past it.
 * `0` reads standard input, which may be a pipe, under the same limit.
 *
 * @example
 * readBoundedText('metrics.json', { what: 'metrics file', maxBytes: READ_LIMITS.document, unreadable: 'input.unreadableMetrics' })
 */
export function readBoundedText(path: string | 0, options: ReadOptions): string {
  const name = path === 0 ? 'stdin' : path;
  const unreadable = (reason: string, code = options.unreadable): LedgerError => new LedgerError(code, `cannot read ${options.what} ${name}: ${reason}`);
  let fd: number;
  try {
    fd = path === 0 ? 0 : openSync(path, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw unreadable('no such file; check the path', options.notFound);
    throw unreadable(`${code ?? (error as Error).message}; check the path and its permissions`);
  }
  try {
    if (path !== 0) {
      const info = fstatSync(fd);
      if (!info.isFile()) throw unreadable(`it is ${info.isDirectory() ? 'a directory' : 'not a regular file (a device, a FIFO or a socket)'}; pass a file`);
    }
    const buffer = Buffer.alloc(Math.min(options.maxBytes + 1, 1024 * 1024));
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      let bytesRead: number;
      try {
        bytesRead = readSync(fd, buffer, 0, Math.min(buffer.length, options.maxBytes + 1 - length), null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // A non-blocking stdin pipe with nothing in it yet: try again, as readFileSync does.
        if (code === 'EAGAIN') continue;
        throw unreadable(code ?? (error as Error).message);
      }
      if (bytesRead === 0) break;
      chunks.push(Buffer.from(buffer.subarray(0, bytesRead)));
      length += bytesRead;
      if (length > options.maxBytes) {
        throw new LedgerError('input.fileTooLarge', `${options.what} ${name} is larger than the ${formatBytes(options.maxBytes)} runledger reads; pass a smaller file`);
      }
    }
    return Buffer.concat(chunks, length).toString('utf8');
  } finally {
    if (path !== 0) closeSync(fd);
  }
}
