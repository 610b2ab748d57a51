// `npm ci` on Node 20 and 22 prints no EBADENGINE: every package the lockfile installs there accepts both. (fastify's
// light-my-request asked for cookie@2, which wants Node 22; package.json overrides it with cookie@1.1.1, which
// has the stringifySetCookie light-my-request calls and supports Node 18+.)
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import semver from 'semver';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
type LockEntry = { version?: string; engines?: { node?: string } | string[]; optional?: boolean; os?: string[]; cpu?: string[] };
const lock = JSON.parse(readFileSync(resolve(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/** The Node versions runledger supports: the lowest its engines allow, and the current lines. */
const NODES = [semver.minVersion(pkg.engines.node)?.version ?? '20.19.0', '20.20.0', '22.20.0'];

/** Packages npm installs on Linux x64 (optional platform binaries for other systems are skipped, and never warn). */
function installedHere(entry: LockEntry): boolean {
  if (!entry.optional) return true;
  return (entry.os ?? ['linux']).includes('linux') && (entry.cpu ?? ['x64']).includes('x64');
}

describe('the lockfile installs cleanly on Node 20 and 22', () => {
  test.each(NODES)('every installed package accepts Node %s', (node) => {
    const refused = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && installedHere(entry))
      .filter(([, entry]) => typeof entry.engines === 'object' && !Array.isArray(entry.engines) && entry.engines.node !== undefined)
      .filter(([, entry]) => !semver.satisfies(node, (entry.engines as { node: string }).node, { includePrerelease: true }))
      .map(([path, entry]) => `${path}@${entry.version} wants node ${(entry.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });

  test('light-my-request gets a cookie with the function it calls', async () => {
    const { stringifySetCookie } = (await import(resolve(ROOT, 'node_modules/light-my-request/node_modules/cookie/dist/index.js'))) as { stringifySetCookie: (c: { name: string; value: string; path?: string }) => string };
    expect(stringifySetCookie({ name: 'session', value: 'a b', path: '/' })).toBe('session=a%20b; Path=/');
  });
});
