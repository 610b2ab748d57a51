// `npm ci` on Node 20, 22 and 24 prints no EBADENGINE: every package the lockfile installs there accepts all three.
// (fastify's light-my-request 6.8 asks for cookie@2, which wants Node 22. A package's `overrides` never reaches its
// dependents, so runledger depends on light-my-request 6.6.0 itself, whose cookie@1 supports Node 18+, and
// fastify's `^6.0.0` dedupes to it in a consumer's install too: types-fresh-project.test.ts installs the tarball.)
// engines states what is tested: this machine's Node 20 runs the whole suite, .ci/node-smoke the 22 and 24 lines.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import semver from 'semver';
import { describe, expect, test } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
type LockEntry = { version?: string; engines?: { node?: string } | string[]; optional?: boolean; os?: string[]; cpu?: string[] };
const lock = JSON.parse(readFileSync(resolve(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/** The Node versions runledger supports: the lowest its engines allow, and the current lines. */
const NODES = [semver.minVersion(pkg.engines.node)?.version ?? '20.19.0', '20.20.0', '22.13.0', '22.23.0', '24.0.0', '24.22.0'];
const SMOKE = readFileSync(resolve(ROOT, '.ci/node-smoke'), 'utf8');

/** Packages npm installs on Linux x64 (optional platform binaries for other systems are skipped, and never warn). */
function installedHere(entry: LockEntry): boolean {
  if (!entry.optional) return true;
  return (entry.os ?? ['linux']).includes('linux') && (entry.cpu ?? ['x64']).includes('x64');
}

describe('engines states what is tested', () => {
  test('the Node running this suite and the lines .ci/node-smoke runs are inside engines', () => {
    expect(semver.satisfies(process.version, pkg.engines.node), process.version).toBe(true);
    const lines = /RUNLEDGER_SMOKE_NODES-([\d ]+)\}/.exec(SMOKE)?.[1]?.trim().split(/\s+/) ?? [];
    expect(lines).toEqual(['22', '24']);
    for (const major of lines) expect(semver.intersects(`^${major}.0.0`, pkg.engines.node), major).toBe(true);
  });

  test.each(['18.20.0', '20.18.0', '21.7.0', '22.12.0', '23.11.0', '25.0.0', '26.0.0'])('Node %s, never tested, is outside engines', (node) => {
    expect(semver.satisfies(node, pkg.engines.node)).toBe(false);
  });
});

describe('the lockfile installs cleanly on Node 20, 22 and 24', () => {
  test.each(NODES)('every installed package accepts Node %s', (node) => {
    const refused = Object.entries(lock.packages)
      .filter(([path, entry]) => path !== '' && installedHere(entry))
      .filter(([, entry]) => typeof entry.engines === 'object' && !Array.isArray(entry.engines) && entry.engines.node !== undefined)
      .filter(([, entry]) => !semver.satisfies(node, (entry.engines as { node: string }).node, { includePrerelease: true }))
      .map(([path, entry]) => `${path}@${entry.version} wants node ${(entry.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });

  test("fastify's light-my-request is the one runledger pins, with no cookie@2 under it", () => {
    const pinned = (JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies['light-my-request'];
    expect(lock.packages['node_modules/light-my-request']?.version).toBe(pinned);
    expect(lock.packages['node_modules/fastify/node_modules/light-my-request']).toBeUndefined();
    const cookies = Object.entries(lock.packages).filter(([path]) => path.endsWith('node_modules/cookie'));
    for (const [path, entry] of cookies) expect(semver.major(entry.version ?? '0.0.0'), path).toBeLessThan(2);
  });
});
