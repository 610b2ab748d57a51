import type { CliContext } from './cli-context.js';

/** Elements per write: the document is produced in pieces this size, never as one string. */
const ELEMENTS_PER_WRITE = 500;

/**
 * Writes `JSON.stringify(doc, null, 2)` for a document whose last key holds
 * a long array (a state's dates), in pieces: the same text, without building
 * it whole (12,500 dates as one pretty string cost ~120 MB of peak memory).
 *
 * @example
 * await writeJsonDocument(ctx, view, 'dates');
 */
export async function writeJsonDocument<T extends object>(ctx: CliContext, doc: T, arrayKey: keyof T & string): Promise<void> {
  const keys = Object.keys(doc);
  const items = (doc as Record<string, unknown>)[arrayKey];
  if (keys.at(-1) !== arrayKey || !Array.isArray(items) || items.length === 0) return ctx.json(doc);
  const head = JSON.stringify({ ...doc, [arrayKey]: [] }, null, 2);
  const open = `${JSON.stringify(arrayKey)}: []\n}`;
  ctx.deps.stdout(`${head.slice(0, head.length - open.length)}${JSON.stringify(arrayKey)}: [\n`);
  for (let i = 0; i < items.length; i += ELEMENTS_PER_WRITE) {
    const piece = items.slice(i, i + ELEMENTS_PER_WRITE).map((item) => JSON.stringify(item, null, 2).replace(/^/gm, '    '));
    ctx.deps.stdout(`${i === 0 ? '' : ',\n'}${piece.join(',\n')}`);
    await ctx.flush();
  }
  ctx.deps.stdout('\n  ]\n}\n');
}
