import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { guide, type ConsoleBlock, type Guide } from './console-blocks.js';

export const ROOT = resolve(import.meta.dirname, '../..');

/** README.md and every Markdown file under docs/, as paths relative to the checkout: a new guide is picked up. */
export function docFiles(root = ROOT): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => relative(root, join(root, 'docs', name)))
    .sort();
  return ['README.md', ...docs];
}

/** Blocks that run in one bash in one directory, one after the other. */
export type BlockChain = { blocks: ConsoleBlock[]; skip?: string };

/**
 * Groups a guide's blocks into the chains the test runs. A guide that runs in one shell is one chain, top to bottom;
 * a skipped block (a server that stays up) is listed as a chain of its own and the shell goes on without it, as the
 * reader's does once they stop the server. A guide whose blocks start in fresh directories has a chain per block.
 */
export function chainsOf({ mode, blocks }: Guide): BlockChain[] {
  const skipped = (b: ConsoleBlock): BlockChain[] => (b.skip === undefined ? [] : [{ blocks: [b], skip: b.skip }]);
  if (mode === 'one shell') {
    const session = blocks.filter((b) => b.skip === undefined);
    return [...(session.length > 0 ? [{ blocks: session }] : []), ...blocks.flatMap(skipped)];
  }
  return blocks.map((b) => skipped(b)[0] ?? { blocks: [b] });
}

export function chainsOfFile(file: string, root = ROOT): BlockChain[] {
  return chainsOf(guide(file, readFileSync(join(root, file), 'utf8')));
}
