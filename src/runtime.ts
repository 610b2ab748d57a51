import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hostname, userInfo } from 'node:os';

/**
 * This build's version, from package.json (the nearest parent folder's that is runledger's: works from src/ and
 * dist/src/), recorded in every event's metadata.
 */
export const toolVersion: string = (() => {
  for (let dir = import.meta.dirname; ; ) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version: string };
      if (manifest.name === 'runledger') return manifest.version;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('runledger: cannot find its own package.json');
    dir = parent;
  }
})();

/** `user@host`, the default actor. */
export function defaultActor(): string {
  let user = process.env['USER'] ?? 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // Some containers have no passwd entry for the uid; $USER is the best we have then.
  }
  return `${user}@${hostname()}`;
}

let host: string | undefined;

/**
 * Where an event was recorded from: host and process. The host name is read once per process, as the
 * pid is: asking the system on every append was 3% of a library start + succeed.
 */
export function processMetadata(): { host: string; pid: number } {
  host ??= hostname();
  return { host, pid: process.pid };
}

/**
 * Whether a process of this host with this pid exists (signal 0 asks without sending); one of another user
 * (EPERM) exists too. A pid says nothing about which program it is now: pids are reused.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
