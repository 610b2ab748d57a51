import { fstatSync, statSync, writeSync } from 'node:fs';
import { LedgerError } from './errors.js';

/** The part of a Node write stream the writer uses. */
type WriteTarget = { write(text: string, callback: (error?: Error | null) => void): boolean };

/** What `directOutput` hands over to: process.stdout, which also takes the bytes left of a text cut short. */
type HandOverTarget = { write(chunk: string | Uint8Array, callback: (error?: Error | null) => void): boolean };

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

/**
 * Whether fd is known, from fstat alone, to be no terminal: a regular file, a pipe or FIFO, a socket (what a Node
 * parent's `stdio: 'pipe'` and systemd's journal give a child), or /dev/null, which is a character device like a
 * terminal and is told apart by its device number. Anything else keeps Node's stream, as before: a terminal (its
 * `columns` and `isTTY` come from the stream), any other character device (/dev/full, a serial line: telling them from
 * a terminal would take node:tty, which loads net and the streams), a directory, a block device, a closed fd, Windows.
 * A socket is taken whatever its type: a datagram socket as stdout, which Node's stream would discard every write to,
 * gets each write as a datagram.
 */
export function plainOutput(fd: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    const stat = fstatSync(fd);
    if (stat.isFile() || stat.isFIFO() || stat.isSocket()) return true;
    return stat.isCharacterDevice() && stat.rdev === statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/**
 * A StdoutWriter target that writes fd itself with write(2) (fs.writeSync, looped over partial writes), so that the
 * stream, whose making loads Node's stream modules and, for a pipe or socket, net, is never made while writes succeed.
 * The first write that fails hands the bytes it did not write, and every text after them, to `stream()`
 * (process.stdout), in order. The stream then does what it always did with that fd, so no failure is handled twice:
 * EAGAIN (a non-blocking pipe or socket that is full: a parent set O_NONBLOCK on the file description fd 1 shares)
 * waits in libuv until the reader takes more, nothing lost or reordered, and the event loop keeps running (a retry
 * loop here would block it, and `serve` or a backfill's runs with it); EPIPE, ENOSPC, EIO or EBADF are the stream's
 * to report (its write fails the same way: a write(2) that fails writes nothing), through its callback and 'error'
 * event, as main.ts has always handled them. `handOver()` sends every later text to the stream at once: main.ts calls it
 * when something else made the stream (commander asking for its width, a library writing to it), so that what they
 * write and what this writes stay in one queue, in order, as when every text went through the stream.
 */
export function directOutput(fd: number, stream: () => HandOverTarget): WriteTarget & { handOver(): void } {
  let handedOver: HandOverTarget | undefined;
  return {
    handOver() {
      handedOver ??= stream();
    },
    write(text, callback) {
      if (handedOver) return handedOver.write(text, callback);
      const bytes = Buffer.from(text, 'utf8');
      let at = 0;
      try {
        while (at < bytes.length) {
          const written = writeSync(fd, bytes, at, bytes.length - at);
          // write(2) writes nothing only when it cannot write: the stream is asked, as for a failure.
          if (written <= 0) throw new Error('nothing written');
          at += written;
        }
      } catch {
        handedOver = stream();
        return handedOver.write(at === 0 ? text : bytes.subarray(at), callback);
      }
      callback(null);
      return true;
    },
  };
}
