import type { RebuildProgress } from '../store/read-models.js';

/**
 * A rebuild's progress as one line redrawn in place on a terminal (stderr): how many events of all are
 * folded, in whole percents, ended with a newline when done.
 *
 * @example
 * const progress = rebuildProgressLine((text) => process.stderr.write(text));
 */
export function rebuildProgressLine(write: (text: string) => void): RebuildProgress {
  let shown = -1;
  return (done, total) => {
    const percent = total === 0 ? 100 : Math.floor((done * 100) / total);
    if (percent === shown) return;
    shown = percent;
    write(`\rrunledger: building the read models from ${total.toLocaleString('en')} events: ${percent}%${done >= total ? '\n' : ''}`);
  };
}
