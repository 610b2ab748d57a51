import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, test } from 'vitest';

test('events/ and projections/ stay pure and drivers stay in their adapters (scripts/lint.mjs)', () => {
  const r = spawnSync(process.execPath, [resolve(import.meta.dirname, '../scripts/lint.mjs')], { encoding: 'utf8' });
  expect(r.stdout).toBe('lint: ok\n');
  expect(r.status).toBe(0);
});
