#!/usr/bin/env node
// `prepack` runs `node scripts/pack-manifest.mjs strip`, `postpack` runs `... restore`, as pinst does for husky:
// the tarball's package.json must not carry `prepare` (npm lists it to every consumer as an install script to
// approve), while a clone's `npm ci` needs it to build. Only that one script is moved aside, to `//prepare`.
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package.json', import.meta.url);
const text = readFileSync(path, 'utf8');
const manifest = JSON.parse(text);
const scripts = manifest.scripts ?? {};
const mode = process.argv[2];
if (mode === 'strip' && 'prepare' in scripts) {
  manifest.scripts = Object.fromEntries(Object.entries(scripts).map(([k, v]) => [k === 'prepare' ? '//prepare' : k, v]));
} else if (mode === 'restore' && '//prepare' in scripts) {
  manifest.scripts = Object.fromEntries(Object.entries(scripts).map(([k, v]) => [k === '//prepare' ? 'prepare' : k, v]));
} else if (mode !== 'strip' && mode !== 'restore') {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exit(2);
} else {
  process.exit(0);
}
writeFileSync(path, `${JSON.stringify(manifest, null, 2)}\n`);
