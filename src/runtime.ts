import { readFileSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';

/** This build's version, from package.json, recorded in every event's metadata. */
export const toolVersion: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** `user@host`, the default actor (DESIGN §3). */
export function defaultActor(): string {
  let user = process.env['USER'] ?? 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // Some containers have no passwd entry for the uid; $USER is the best we have then.
  }
  return `${user}@${hostname()}`;
}

/** Where an event was recorded from: host and process. */
export function processMetadata(): { host: string; pid: number } {
  return { host: hostname(), pid: process.pid };
}
