import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, test } from 'vitest';
import { fileLineBatches, fileLines } from '../../src/audit/read-export-file.js';
import { tempDir } from '../audit/cli-session.js';

async function linesOf(path: string): Promise<Array<{ line: string; last: boolean }>> {
  const lines = [];
  for await (const line of fileLines(path, 'test file')) lines.push(line);
  return lines;
}

function fileWith(text: string | Buffer): string {
  const path = join(tempDir(), 'lines.txt');
  writeFileSync(path, text);
  return path;
}

describe('fileLines', () => {
  test.each([
    { label: 'ends with a newline', text: 'a\nb\n', lines: ['a', 'b'] },
    { label: 'ends without a newline', text: 'a\nb', lines: ['a', 'b'] },
    { label: 'empty lines kept', text: 'a\n\nb\n', lines: ['a', '', 'b'] },
    { label: 'CRLF line ends', text: 'a\r\nb\r\n', lines: ['a', 'b'] },
    { label: 'an empty file', text: '', lines: [] },
    { label: 'one newline', text: '\n', lines: [''] },
  ])('$label', async ({ text, lines }) => {
    const read = await linesOf(fileWith(text));
    expect(read.map((l) => l.line)).toEqual(lines);
    expect(read.map((l) => l.last)).toEqual(lines.map((_, i) => i === lines.length - 1));
  });

  test('fileLineBatches gives the same lines, none in an empty batch, the last one alone in the batch marked last', async () => {
    // About 2.6 MB of short CRLF lines (three read chunks), the last line without its newline.
    const text = `${Array.from({ length: 200_000 }, (_, i) => `line ${i}`).join('\r\n')}\ntail`;
    const path = fileWith(text);
    const batches: Array<{ lines: string[]; last: boolean }> = [];
    for await (const batch of fileLineBatches(path, 'test file')) batches.push(batch);
    expect(batches.length).toBeGreaterThan(2);
    expect(batches.every((b) => b.lines.length > 0)).toBe(true);
    expect(batches.map((b) => b.last)).toEqual(batches.map((_, i) => i === batches.length - 1));
    expect(batches.at(-1)?.lines).toEqual(['tail']);
    expect(batches.flatMap((b) => b.lines)).toEqual((await linesOf(path)).map((l) => l.line));
  });

  test('a line longer than a read chunk, and a multi-byte character cut by a chunk boundary, come back whole', async () => {
    // Reads are 1 MiB: the first line crosses two boundaries, and the 'é' of the second sits on one.
    const long = 'x'.repeat(2.5 * (1 << 20));
    const second = `${'y'.repeat((1 << 20) * 3 - long.length - 2)}é tail`;
    const read = await linesOf(fileWith(`${long}\n${second}\n`));
    expect(read.map((l) => l.line.length)).toEqual([long.length, second.length]);
    expect(read[1]?.line.endsWith('é tail')).toBe(true);
  });

  test('a short piece kept from every thousandth line does not keep the file in memory', async () => {
    // Lines decoded from one decoded chunk are slices of it: keeping a 64-character hash cut from
    // one line per MiB kept every MiB alive (replay held a whole batch's worth of the file).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const line = `{"hash":"${'a'.repeat(64)}","event":{"pad":"${'p'.repeat(600)}"}}`;
    // Filled outside the JavaScript heap, so the heap holds only what the reading keeps.
    const path = fileWith(Buffer.alloc(100_000 * (line.length + 1), `${line}\n`));
    gc();
    const before = process.memoryUsage().heapUsed;
    const kept: string[] = [];
    let n = 0;
    for await (const { line: read } of fileLines(path, 'test file')) if (n++ % 1000 === 0) kept.push(read.slice(9, 73));
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(kept).toHaveLength(100);
    // The file is 67 MB; what was kept is 6.4 KB of text.
    expect(grown).toBeLessThan(16 * 1e6);
  });
});
