import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, test } from 'vitest';
import { tempDir } from './support/run-cli.js';

const LINT = resolve(import.meta.dirname, '../scripts/lint.mjs');
const ROOT = resolve(import.meta.dirname, '..');

/** A copy of the checkout's code, for a lint run over a deliberately broken tree. */
function copyOfCode(): string {
  const dir = tempDir('runledger-lint-');
  for (const part of ['events', 'projections', 'src']) cpSync(join(ROOT, part), join(dir, part), { recursive: true });
  return dir;
}

function lint(root?: string) {
  return spawnSync(process.execPath, [LINT, ...(root ? [root] : [])], { encoding: 'utf8' });
}

test('the checkout passes the architecture lint: pure core, drivers in their adapters, layers pointing down, no cycles', () => {
  const r = lint();
  expect(r.stdout).toBe('lint: ok\n');
  expect(r.status).toBe(0);
});

test('when a lower layer imports a higher one then the lint fails and names the import', () => {
  const root = copyOfCode();
  expect(lint(root).stdout).toBe('lint: ok\n');
  // The ledger reaching up into the CLI (a table formatter, say) is the kind of import the layers forbid.
  appendFileSync(join(root, 'src/ledger/slots.ts'), "import { runCli } from '../cli/create-program.js';\nvoid runCli;\n");
  const r = lint(root);
  expect(r.status).toBe(1);
  expect(r.stdout).toContain('src/ledger/slots.ts: imports src/cli/create-program.ts, a layer above');
});

test('when src/ gets a folder the layer order does not name then the lint asks for its place', () => {
  const root = copyOfCode();
  cpSync(join(root, 'src/format'), join(root, 'src/newthing'), { recursive: true });
  const r = lint(root);
  expect(r.status).toBe(1);
  expect(r.stdout).toContain('src/newthing has no place in the layer order');
});

test('when projections/ reads the clock then the lint fails: the core stays pure', () => {
  const root = copyOfCode();
  appendFileSync(join(root, 'projections/pending.ts'), 'export const leak = Date.now();\n');
  const r = lint(root);
  expect(r.status).toBe(1);
  expect(r.stdout).toContain('projections/pending.ts: reads a clock or randomness; projections/ must stay pure');
});

test('when a shared test helper registers a hook at its top level then the lint fails: it would serve one file only', () => {
  const root = copyOfCode();
  cpSync(join(ROOT, 'tests/support'), join(root, 'tests/support'), { recursive: true });
  expect(lint(root).stdout).toBe('lint: ok\n');
  appendFileSync(join(root, 'tests/support/pg.ts'), "import { afterAll } from 'vitest';\nafterAll(() => undefined);\n");
  const r = lint(root);
  expect(r.status).toBe(1);
  expect(r.stdout).toContain('tests/support/pg.ts: a test helper registers a hook at its top level');
});
