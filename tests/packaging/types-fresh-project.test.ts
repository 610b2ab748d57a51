// A consumer's fresh project: `npm install` of the packed tarball from the registry (so its dependency ranges resolve
// as they do for every user today), with TypeScript 5.9 and the registry's latest TypeScript side by side, and
// @types/node. One install, then `tsc --noEmit` per cell of the matrix: TypeScript 5.9 and latest × module nodenext,
// node16 and bundler × target es2022 and esnext × with and without @types/node, strict, skipLibCheck off (so
// runledger's own .d.ts are checked), plus a CommonJS file under nodenext. The same install must print no
// EBADENGINE on this Node.
//
// This file needs the registry (`npm view typescript version` names "the latest"); npm's own cache makes the
// install quick after the first run. Without the registry it fails, saying so: a skipped matrix would hide a broken
// promise.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { packTarball, ROOT, run } from './packed-tarball.js';

const ts59 = (JSON.parse(run('npm', ['pkg', 'get', 'devDependencies.typescript'], ROOT)) as string).replace(/^\D*/, '');
const project = mkdtempSync(join(tmpdir(), 'runledger-consumer-'));
let installOutput = '';
let latest = '';

beforeAll(() => {
  const view = spawnSync('npm', ['view', 'typescript', 'version'], { encoding: 'utf8' });
  if (view.status !== 0) throw new Error(`npm view typescript version failed; this test installs from the registry: ${view.stderr.trim()}`);
  latest = view.stdout.trim();
  const tarball = packTarball(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }));
  const install = spawnSync(
    'npm',
    ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn', tarball, `ts-now@npm:typescript@${ts59}`, `ts-latest@npm:typescript@${latest}`, '@types/node'],
    { cwd: project, encoding: 'utf8' },
  );
  installOutput = install.stdout + install.stderr;
  if (install.status !== 0) throw new Error(`npm install of the packed tarball failed: ${installOutput}`);
}, 600_000);
afterAll(() => rmSync(project, { recursive: true, force: true }));

const CONSUMER_ESM = [
  "import { openLedger, LedgerError, type RunSummary, type StateView, type SucceedInput, type FailInput } from 'runledger';",
  "import { given } from 'runledger/testing';",
  'export async function use(): Promise<void> {',
  "  await using ledger = await openLedger({ db: 'x.db' });",
  "  await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-02', lease: '2h' });",
  "  const summary: RunSummary = await ledger.catchup({ pipeline: 'p', allPending: true }, async () => ({ rows: 1 }));",
  "  const state: StateView = await ledger.state({ pipeline: 'p' });",
  "  const ok: SucceedInput = { runId: 'r' };",
  "  const failed: FailInput = { runId: 'r', error: 'boom' };",
  '  console.log(summary.succeeded, state.dates.length, LedgerError.name, typeof given, ok, failed);',
  '}',
].join('\n');

const CONSUMER_CJS = [
  "import { openLedger, type StateView } from 'runledger';",
  'export async function use(): Promise<StateView> {',
  "  const ledger = await openLedger({ db: 'x.db' });",
  "  return ledger.state({ pipeline: 'p' });",
  '}',
].join('\n');

type Cell = { typescript: 'ts-now' | 'ts-latest'; module: 'nodenext' | 'node16' | 'bundler'; target: 'es2022' | 'esnext'; node: boolean };
const cells: Cell[] = [];
for (const typescript of ['ts-now', 'ts-latest'] as const)
  for (const module of ['nodenext', 'node16', 'bundler'] as const)
    for (const target of ['es2022', 'esnext'] as const) for (const node of [false, true]) cells.push({ typescript, module, target, node });

/** Runs tsc of `typescript` on a tsconfig of its own in the shared project; returns what it printed. */
function tsc(typescript: string, name: string, compilerOptions: Record<string, unknown>, files: string[]): { status: number | null; output: string } {
  const dir = join(project, name);
  mkdirSync(dir, { recursive: true });
  const config = { compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, ...compilerOptions }, files: files.map((f) => `../${f}`) };
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(config, null, 2));
  const r = spawnSync(process.execPath, [join(project, 'node_modules', typescript, 'bin/tsc'), '-p', dir], { cwd: project, encoding: 'utf8' });
  return { status: r.status, output: r.stdout + r.stderr };
}

describe('the packed tarball in a fresh project', () => {
  test('installs with no EBADENGINE warning on this Node', () => {
    expect(installOutput).not.toMatch(/EBADENGINE/);
  });

  test('the latest TypeScript is a different release line from 5.9, so the matrix covers two', () => {
    expect(latest.split('.')[0]).not.toBe(ts59.split('.')[0]);
  });

  test.each(cells)('$typescript, module $module, target $target, @types/node $node: tsc --noEmit passes', ({ typescript, module, target, node }) => {
    writeFileSync(join(project, 'consumer.ts'), CONSUMER_ESM);
    const moduleOptions = module === 'bundler' ? { module: 'preserve', moduleResolution: 'bundler' } : { module, moduleResolution: module };
    const r = tsc(typescript, `${typescript}-${module}-${target}-${node ? 'node' : 'none'}`, { ...moduleOptions, target, types: node ? ['node'] : [] }, ['consumer.ts']);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });

  test.each(['ts-now', 'ts-latest'])('%s: a CommonJS file (.cts) under module nodenext imports the ESM package (require of ES modules)', (typescript) => {
    writeFileSync(join(project, 'consumer.cts'), CONSUMER_CJS);
    const r = tsc(typescript, `${typescript}-cjs`, { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: [] }, ['consumer.cts']);
    expect(r.output).toBe('');
    expect(r.status).toBe(0);
  });
});
