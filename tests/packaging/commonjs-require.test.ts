// A CommonJS project uses the ESM-only package through Node's require of ES modules (unflagged from Node 20.19 and
// 22.12; engines starts the 22 line at 22.13, where every dev dependency installs without a warning): `require('runledger')` returns the same exports as `import`, and a
// ledger opened that way works. `.ci/node-smoke` runs this file on Node 22 and 24 as well.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { installOffline, run, sharedTarball } from './packed-tarball.js';

const project = mkdtempSync(join(tmpdir(), 'runledger-cjs-'));
beforeAll(() => {
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }));
  installOffline(project, sharedTarball(project));
}, 120_000);
afterAll(() => rmSync(project, { recursive: true, force: true }));

describe('require() from a CommonJS project', () => {
  test("require('runledger') and require('runledger/testing') give the library, and a ledger opened through them records a run", () => {
    writeFileSync(
      join(project, 'consumer.cjs'),
      [
        "const { openLedger, LedgerError } = require('runledger');",
        "const { given } = require('runledger/testing');",
        'async function main() {',
        "  const ledger = await openLedger({ db: 'consumer.db', actor: 'cjs', clock: () => Date.parse('2026-11-04T00:00:00Z') });",
        "  await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-02' });",
        "  const run = await ledger.start({ pipeline: 'p', date: '2026-11-02' });",
        '  await ledger.succeed({ runId: run.runId });',
        "  const state = await ledger.state({ pipeline: 'p' });",
        '  await ledger.close();',
        '  console.log(JSON.stringify({ watermark: state.watermark, error: typeof LedgerError, given: typeof given }));',
        '}',
        'main().catch((e) => { console.error(e); process.exit(1); });',
      ].join('\n'),
    );
    const out = run(process.execPath, ['consumer.cjs'], project);
    expect(JSON.parse(out)).toEqual({ watermark: '2026-11-02', error: 'function', given: 'function' });
  });
});
