import { LedgerError } from './errors.js';

/** The part of a Node write stream the writer uses. */
type WriteTarget = { write(text: string, callback: (error?: Error | null) => void): boolean };

/**
 * Writes the CLI's stdout and remembers the first failed write (a full disk:
 * ENOSPC, a device error: EIO). The failure surfaces as one `LedgerError`
 * (exit 1): on the next write, so a streaming export stops at once, and on
 * `flush`, which a command awaits before it prints a success line.
 *
 * @example
 * const out = new StdoutWriter(process.stdout);
 * out.write('data\n'); await out.flush(); // throws output.writeFailed on ENOSPC
 */
export class StdoutWriter {
  readonly #target: WriteTarget;
  #failure: NodeJS.ErrnoException | undefined;
  #last: Promise<void> = Promise.resolve();

  constructor(target: WriteTarget) {
    this.#target = target;
  }

  /**
   * Records a failure reported by the stream's 'error' event or a write's callback. EPIPE (the reader
   * went away, `… | head`) is not one: main.ts decides what a closed pipe means.
   */
  failed(error: NodeJS.ErrnoException): void {
    if (error.code === 'EPIPE') return;
    this.#failure ??= error;
  }

  get failure(): NodeJS.ErrnoException | undefined {
    return this.#failure;
  }

  write(text: string): void {
    if (this.#failure) throw writeFailed(this.#failure);
    // A long text (a megabyte of `status --json`) goes out in pieces: each is encoded into a small buffer that
    // malloc reuses, where the whole text would take a fresh buffer of its size (fresh pages, faulted in one by one).
    for (let start = 0; start < text.length; ) {
      let end = Math.min(text.length, start + PIECE);
      // Never split a surrogate pair: each half alone would be written as U+FFFD.
      if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
      this.#writePiece(start === 0 && end === text.length ? text : text.slice(start, end));
      start = end;
    }
  }

  #writePiece(text: string): void {
    this.#last = new Promise((resolve) => {
      this.#target.write(text, (error) => {
        if (error) this.failed(error);
        resolve();
      });
    });
  }

  async flush(): Promise<void> {
    await this.#last;
    if (this.#failure) throw writeFailed(this.#failure);
  }
}

/** The longest piece written at once: under glibc's 128 KiB mmap threshold once encoded. */
const PIECE = 32_768;

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function writeFailed(error: NodeJS.ErrnoException): LedgerError {
  const reason = error.code === 'ENOSPC' ? 'ENOSPC, no space left on the device' : (error.code ?? error.message);
  return new LedgerError('output.writeFailed', `cannot write the output to stdout (${reason}); the output is incomplete: free space or write it elsewhere, then run the command again`);
}
