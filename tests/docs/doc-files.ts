import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { consoleBlocks, type ConsoleBlock } from './console-blocks.js';

export const ROOT = resolve(import.meta.dirname, '../..');

/** README.md and every Markdown file under docs/, as paths relative to the checkout: a new guide is picked up. */
export function docFiles(root = ROOT): string[] {
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => relative(root, join(root, 'docs', name)))
    .sort();
  return ['README.md', ...docs];
}

/** Blocks that run in one directory, one after the other: a block and the blocks that continue it. */
export type BlockChain = { blocks: ConsoleBlock[]; skip?: string };

/**
 * Groups a file's blocks into chains. A skipped block is a chain of its own; a block that continues a skipped one
 * is skipped too (it would run without what the skipped block made), and says so.
 */
export function chainsOf(blocks: ConsoleBlock[]): BlockChain[] {
  const chains: BlockChain[] = [];
  for (const block of blocks) {
    const last = chains.at(-1);
    if (block.continues && last) {
      if (last.skip !== undefined) chains.push({ blocks: [block], skip: block.skip ?? `continues the skipped block at line ${last.blocks[0]?.line}` });
      else if (block.skip !== undefined) chains.push({ blocks: [block], skip: block.skip });
      else last.blocks.push(block);
      continue;
    }
    if (block.continues) throw new Error(`${block.file}:${block.line}: <!-- doc-test: continue --> before the first console block of the file: there is nothing to continue`);
    chains.push(block.skip !== undefined ? { blocks: [block], skip: block.skip } : { blocks: [block] });
  }
  return chains;
}

export function chainsOfFile(file: string, root = ROOT): BlockChain[] {
  return chainsOf(consoleBlocks(file, readFileSync(join(root, file), 'utf8')));
}
