import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';

// `npm run check` runs knip, so a dependency nothing imports (croner and date-fns once were) fails it.

const ROOT = resolve(import.meta.dirname, '../..');
const KNIP = join(ROOT, 'node_modules/knip/bin/knip.js');
const copies: string[] = [];
afterAll(() => {
  for (const dir of copies) rmSync(dir, { recursive: true, force: true });
});

/** The project's sources and configuration in a temp dir, node_modules linked, with package.json edited by `edit`. */
function projectCopy(edit: (pkg: Record<string, Record<string, string>>) => void): string {
  const dir = mkdtempSync(join(tmpdir(), 'runledger-knip-'));
  copies.push(dir);
  for (const name of ['.gitignore', 'events', 'projections', 'src', 'bench', 'examples', 'scripts', 'tests', 'bin', 'knip.jsonc', 'tsconfig.json', 'tsconfig.build.json', 'vitest.config.ts']) {
    cpSync(join(ROOT, name), join(dir, name), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, Record<string, string>>;
  edit(pkg);
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  return dir;
}

function knip(cwd: string) {
  const r = spawnSync(process.execPath, [KNIP, '--no-progress'], { cwd, encoding: 'utf8' });
  return { code: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('npm run check catches unused dependencies', () => {
  test('the check script runs knip', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['check']).toMatch(/(^|&& )knip\b/);
  });

  // One knip run (it walks the whole project): a copy with both mistakes fails, and its report names those two and
  // nothing else, so the project without them passes.
  test('when a runtime dependency nothing imports or a source file nothing imports is added then knip fails naming each and nothing else', () => {
    const dirty = projectCopy((pkg) => {
      pkg['dependencies'] = { ...pkg['dependencies'], 'date-fns': '4.1.0' };
    });
    writeFileSync(join(dirty, 'src', 'orphan-helper.ts'), 'export const orphan = 1;\n');
    const r = knip(dirty);
    expect(r.code, r.output).toBe(1);
    const findings = r.output.trim().split('\n').map((line) => line.trim().split(/\s+/)[0]);
    expect(findings).toEqual(['Unused', 'src/orphan-helper.ts', 'Unused', 'date-fns']);
    expect(r.output).toMatch(/^Unused files \(1\)$/m);
    expect(r.output).toMatch(/^Unused dependencies \(1\)$/m);
  });
});
