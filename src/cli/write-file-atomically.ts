import { closeSync, fchmodSync, lstatSync, openSync, readlinkSync, renameSync, rmSync, statSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { LedgerError } from '../errors.js';

interface WriteOptions {
  /** The option that named the file, for messages: `--out`, `--html`, `--textfile`. */
  flag: string;
  /** An example value of it: `ledger.jsonl`. */
  example: string;
  /** The mode of a new file (before the umask); an existing file keeps its own. */
  newMode?: number;
}

/**
 * Writes `--out`/`--html`/`--textfile` output. A regular file (or none yet) is written to a temporary file beside it
 * and renamed over it, so readers see the old file or the new one and a failure leaves the old one; it keeps the
 * old file's mode. A symlink is followed: its target is what gets replaced, the link stays. A device or a FIFO
 * (`/dev/stdout`, `/dev/full`, a named pipe) is written through directly, never replaced. A path that cannot be
 * opened is exit 2; a write that fails (a full disk, an I/O error) is one line, exit 1, with the reason.
 * Returns the last chunk written.
 *
 * @example
 * await writeFileAtomically('ledger.jsonl', lines, { flag: '--out', example: 'ledger.jsonl' })
 */
export async function writeFileAtomically(path: string, chunks: AsyncIterable<string> | Iterable<string>, options: WriteOptions): Promise<string> {
  let target: string;
  let existing: Stats | undefined;
  try {
    target = followLinks(path);
    existing = statSync(target, { throwIfNoEntry: false });
  } catch (error) {
    if (error instanceof LedgerError) throw error;
    throw new LedgerError('input.unwritableFile', `cannot write ${options.flag} ${path} (${reasonOf(error)}); pass a file in a directory that exists and is writable`);
  }
  if (existing?.isDirectory()) {
    throw new LedgerError('input.unwritableFile', `cannot write ${path}: it is a directory; pass a file path to ${options.flag}, e.g. ${options.flag} ${options.example}`);
  }
  const direct = existing !== undefined && !existing.isFile();
  const written = direct ? target : join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
  let fd: number;
  try {
    // A new file is not readable by others while it is written when the old one was not.
    fd = openSync(written, 'w', existing === undefined || direct ? (options.newMode ?? 0o666) : existing.mode & 0o777);
    if (!direct && existing !== undefined) fchmodSync(fd, existing.mode & 0o7777);
  } catch (error) {
    throw new LedgerError('input.unwritableFile', `cannot write ${options.flag} ${path} (${reasonOf(error)}); pass a file in a directory that exists and is writable`);
  }
  let last = '';
  let open = true;
  try {
    for await (const chunk of chunks) {
      writeAll(fd, chunk, path, direct);
      last = chunk;
    }
    open = false;
    try {
      closeSync(fd);
      if (!direct) renameSync(written, target);
    } catch (error) {
      throw writeFailed(path, error, direct);
    }
    return last;
  } catch (error) {
    if (open) closeSync(fd);
    if (!direct) rmSync(written, { force: true });
    throw error;
  }
}

/** The file a path names after following symlinks, also a dangling one (the file it will create). */
function followLinks(path: string): string {
  let at = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    if (!lstatSync(at, { throwIfNoEntry: false })?.isSymbolicLink()) return at;
    at = resolve(dirname(at), readlinkSync(at));
  }
  throw new LedgerError('input.unwritableFile', `cannot write ${path}: too many levels of symbolic links; pass the file itself`);
}

function writeAll(fd: number, chunk: string, path: string, direct: boolean): void {
  const bytes = Buffer.from(chunk, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      throw writeFailed(path, error, direct);
    }
  }
}

function reasonOf(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') return 'ENOSPC, no space left on the device';
  return code ?? (error as Error).message;
}

function writeFailed(path: string, error: unknown, direct: boolean): LedgerError {
  const left = direct ? 'the output is incomplete' : 'nothing was replaced';
  return new LedgerError('output.writeFailed', `cannot write the output to ${path} (${reasonOf(error)}); ${left}: free space or write it elsewhere, then run the command again`);
}
