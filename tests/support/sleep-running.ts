import { existsSync, readFileSync } from 'node:fs';

/**
 * True while the process runs a `sleep` (the tests' stubborn commands all end in one) and is not a zombie: pids
 * are reused within seconds on a busy machine (pid_max 32768), so the pid alone does not say it is still ours.
 */
export function sleepRunning(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sleep') && !/\) Z /.test(readFileSync(stat, 'utf8'));
  } catch {
    return false;
  }
}
