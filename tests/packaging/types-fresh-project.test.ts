// The shipped types compile in a fresh TypeScript project: `tsc --init` defaults (no `types: ["node"]`), with
// skipLibCheck off so runledger's own .d.ts files are checked, installing the packed tarball.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, test, vi } from 'vitest';

vi.setConfig({ testTimeout: 120_000 });

const ROOT = resolve(import.meta.dirname, '../..');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const project = mkdtempSync(join(tmpdir(), 'runledger-types-'));
afterAll(() => rmSync(project, { recursive: true, force: true }));

function run(command: string, args: string[], cwd: string): string {
  const r = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stdout}${r.stderr}`);
  return r.stdout;
}

/**
 * The project as `npm install ./runledger-<version>.tgz` leaves it, offline: the tarball unpacked into
 * node_modules/runledger, and runledger's production dependencies (never its dev ones, so no @types/node) linked
 * beside it, as npm hoists them.
 */
function installPackedTarball(): void {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', project], ROOT)) as [{ filename: string }];
  const target = join(project, 'node_modules/runledger');
  mkdirSync(target, { recursive: true });
  run('tar', ['xzf', join(project, packed[0].filename), '-C', target, '--strip-components=1'], project);
  const production = run('npm', ['ls', '--omit=dev', '--all', '--parseable'], ROOT).trim().split('\n').slice(1);
  for (const path of production) {
    const rel = relative(join(ROOT, 'node_modules'), path);
    if (rel.includes('node_modules')) continue; // nested copies come with their parent's link
    mkdirSync(dirname(join(project, 'node_modules', rel)), { recursive: true });
    symlinkSync(path, join(project, 'node_modules', rel));
  }
}

describe('the packed types in a fresh project', () => {
  test('tsc --init defaults, skipLibCheck off: no error in runledger\'s .d.ts', () => {
    installPackedTarball();
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }));
    run(process.execPath, [TSC, '--init'], project);
    const init = ts.parseConfigFileTextToJson('tsconfig.json', readFileSync(join(project, 'tsconfig.json'), 'utf8'));
    const options = (init.config as { compilerOptions: Record<string, unknown> }).compilerOptions;
    expect(options['types'] ?? []).not.toContain('node');
    // runledger's .d.ts are checked. The linked dependencies resolve their own imports from this project (where
    // npm would have put them), not from this checkout's node_modules, which holds @types/node.
    const compilerOptions = { ...options, skipLibCheck: false, preserveSymlinks: true };
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['index.ts'] }, null, 2));
    writeFileSync(
      join(project, 'index.ts'),
      [
        "import { openLedger, LedgerError, type RunSummary, type StateView } from 'runledger';",
        "import { given } from 'runledger/testing';",
        "const ledger = await openLedger({ db: 'x.db' });",
        "await ledger.define({ pipeline: 'p', schedule: '@daily', start: '2026-11-02', lease: '2h' });",
        "const summary: RunSummary = await ledger.catchup({ pipeline: 'p', allPending: true }, async () => ({ rows: 1 }));",
        "const state: StateView = await ledger.state({ pipeline: 'p' });",
        'console.log(summary.succeeded, state.dates.length, LedgerError.name, typeof given);',
      ].join('\n'),
    );
    expect(readdirSync(join(project, 'node_modules'))).not.toContain('@types');
    const r = spawnSync(process.execPath, [TSC, '-p', '.', '--noEmit'], { cwd: project, encoding: 'utf8' });
    expect(r.stdout + r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
