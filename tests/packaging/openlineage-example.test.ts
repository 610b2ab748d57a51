// docs/openlineage.md's example as a newcomer outside the clone runs it: in a fresh project that installed the packed
// tarball, `npx runledger` being the installed package's CLI, reading the example events the package ships under
// examples/ (the doc test skips the block, naming this file).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { guide } from '../docs/console-blocks.js';
import { driftOf, runChain } from '../docs/run-console-block.js';
import { installOffline, ROOT, sharedTarball } from './packed-tarball.js';

const DOC = 'docs/openlineage.md';
const project = mkdtempSync(join(tmpdir(), 'runledger-openlineage-'));
const work = mkdtempSync(join(tmpdir(), 'runledger-openlineage-doc-'));
beforeAll(() => {
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  installOffline(project, sharedTarball(work));
}, 120_000);
afterAll(() => {
  rmSync(project, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

test(`${DOC}'s ingest example prints what the doc shows, run in a project that installed the packed tarball`, async () => {
  const blocks = guide(DOC, readFileSync(join(ROOT, DOC), 'utf8')).blocks.filter((b) => b.skip?.includes('tests/packaging/openlineage-example.test.ts'));
  expect(blocks.length).toBeGreaterThan(0);
  const { outputs, deprecations } = await runChain({ blocks }, project, work, join(project, 'node_modules/runledger/bin/runledger.js'));
  for (const [i, block] of blocks.entries()) {
    const drift = driftOf(block, outputs[i] ?? []);
    expect.soft(drift?.actual, drift?.where).toBe(drift?.expected);
  }
  expect(deprecations).toEqual([]);
}, 60_000);
