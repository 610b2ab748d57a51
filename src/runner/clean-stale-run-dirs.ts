import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { processAlive } from '../runtime.js';

/** Per-run directories are named `runledger-run-<pid>-<random>`, so a later runner can tell whose they are. */
export const RUN_DIR_PREFIX = 'runledger-run-';

/**
 * Removes the per-run directories (`runledger-run-<pid>-…`, each holding one
 * run's metrics file) that a runner killed with -9 left behind: those whose
 * process no longer exists and that belong to this user. A directory whose
 * pid is alive, or was reused, is left alone; it costs a few bytes.
 *
 * @example
 * await cleanStaleRunDirs(tmpdir());
 */
export async function cleanStaleRunDirs(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const pid = new RegExp(`^${RUN_DIR_PREFIX}(\\d+)-`).exec(name)?.[1];
    if (pid === undefined || Number(pid) === process.pid || processAlive(Number(pid))) continue;
    const path = join(dir, name);
    try {
      const info = await stat(path);
      if (!info.isDirectory() || (process.getuid && info.uid !== process.getuid())) continue;
      await rm(path, { recursive: true, force: true });
      removed += 1;
    } catch {
      // Gone already, or not ours to remove.
    }
  }
  return removed;
}
