import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { directOutput, plainOutput, StdoutWriter } from '../../src/stdout-writer.js';
import { tempDir } from '../support/run-cli.js';

/** A target that records each write and can be told to fail. */
function target(fail?: NodeJS.ErrnoException) {
  const pieces: string[] = [];
  return {
    pieces,
    write(text: string, callback: (error?: Error | null) => void): boolean {
      pieces.push(text);
      queueMicrotask(() => callback(fail ?? null));
      return true;
    },
  };
}

describe('StdoutWriter', () => {
  it('writes a long text in pieces that join back to it, never splitting a surrogate pair', async () => {
    // An emoji (two UTF-16 units) straddles every 32,768-unit boundary a naive split would cut.
    const text = `${'a'.repeat(32_767)}😀${'b'.repeat(40_000)}😀${'c'.repeat(100)}`;
    const out = target();
    const writer = new StdoutWriter(out);
    writer.write(text);
    await writer.flush();
    expect(out.pieces.length).toBeGreaterThan(1);
    expect(out.pieces.join('')).toBe(text);
    for (const piece of out.pieces) {
      expect(Buffer.from(piece).toString()).toBe(piece); // no lone surrogate (it would come back as U+FFFD)
      expect(piece.length).toBeLessThanOrEqual(32_768);
    }
  });

  it('writes a short text as it is, in one write', async () => {
    const out = target();
    const writer = new StdoutWriter(out);
    writer.write('{"ok":true}\n');
    await writer.flush();
    expect(out.pieces).toEqual(['{"ok":true}\n']);
  });

  it('reports a full disk on flush', async () => {
    const out = target(Object.assign(new Error('no space'), { code: 'ENOSPC' }));
    const writer = new StdoutWriter(out);
    writer.write('x'.repeat(70_000));
    await expect(writer.flush()).rejects.toThrow(/ENOSPC/);
  });
});

describe('directOutput', () => {
  it('writes a file descriptor itself while writes succeed, never asking for the stream', async () => {
    const file = join(tempDir('runledger-direct-'), 'out.txt');
    const fd = openSync(file, 'w');
    try {
      expect(plainOutput(fd)).toBe(true);
      const writer = new StdoutWriter(directOutput(fd, () => { throw new Error('the stream was asked for'); }));
      const text = `${'\u00e9'.repeat(40_000)}\n`;
      writer.write('first\n');
      writer.write(text);
      await writer.flush();
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, 'utf8')).toBe(`first\n${'\u00e9'.repeat(40_000)}\n`);
  });

  it('hands the text whose write failed, and every text after it, to the stream, in order', async () => {
    const file = join(tempDir('runledger-direct-'), 'read-only.txt');
    writeFileSync(file, '');
    const fd = openSync(file, 'r'); // write(2) fails: EBADF
    const out = target();
    let asked = 0;
    try {
      const writer = new StdoutWriter(directOutput(fd, () => ((asked += 1), out)));
      writer.write('one\n');
      writer.write('two\n');
      await writer.flush();
    } finally {
      closeSync(fd);
    }
    expect(asked).toBe(1);
    expect(out.pieces).toEqual(['one\n', 'two\n']);
  });

  it('sends every text to the stream once told to hand over, though writes would succeed', async () => {
    const file = join(tempDir('runledger-direct-'), 'out.txt');
    const fd = openSync(file, 'w');
    const out = target();
    try {
      const direct = directOutput(fd, () => out);
      const writer = new StdoutWriter(direct);
      writer.write('mine\n');
      direct.handOver();
      writer.write('theirs\n');
      await writer.flush();
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
    expect(out.pieces).toEqual(['theirs\n']);
  });

  it.runIf(process.platform !== 'win32')('takes /dev/null for no terminal, and no other character device', () => {
    for (const [device, plain] of [['/dev/null', true], ['/dev/zero', false]] as const) {
      const fd = openSync(device, 'w');
      try {
        expect(plainOutput(fd)).toBe(plain);
      } finally {
        closeSync(fd);
      }
    }
  });
});
