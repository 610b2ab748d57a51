import { describe, expect, it } from 'vitest';
import { StdoutWriter } from '../../src/stdout-writer.js';

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
