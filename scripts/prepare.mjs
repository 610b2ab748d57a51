#!/usr/bin/env node
// `npm ci` / `npm install` in a clone runs `prepare`: build there, so `npx runledger` works right after it.
// The published package has no sources to build (and no TypeScript), so outside a checkout this does nothing;
// `npm pack` and `npm publish` build in `prepack` instead.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const isCheckout = existsSync(new URL('.git', root)) && existsSync(new URL('tsconfig.build.json', root));
if (isCheckout) {
  const npm = process.env['npm_execpath'];
  const r = npm
    ? spawnSync(process.execPath, [npm, 'run', 'build'], { stdio: 'inherit' })
    : spawnSync('npm', ['run', 'build'], { stdio: 'inherit', shell: process.platform === 'win32' });
  process.exit(r.status ?? 1);
}
