import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { inject } from 'vitest';

/** The checkout under test. */
export const ROOT = resolve(import.meta.dirname, '../..');

/** Runs a command and returns its stdout; a non-zero exit throws with everything it printed. */
export function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const r: SpawnSyncReturns<string> = spawnSync(command, args, { cwd, encoding: 'utf8', env });
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${r.status ?? r.signal}): ${r.stdout}${r.stderr}`);
  return r.stdout;
}

/** `npm pack` of the checkout (dist/ as `npm test` built it) into `dest`; returns the tarball's path. */
export function packTarball(dest: string): string {
  const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest], ROOT)) as [{ filename: string }];
  return join(dest, packed[0].filename);
}

/**
 * The checkout's tarball, packed once per test run into the run's shared directory (tests/support/shared-pack.ts):
 * the first file to ask packs it, the others wait for it and read the same file. Every caller only reads the
 * tarball (unpacks or installs it). A file run outside such a run packs into `dest` itself.
 */
export function sharedTarball(dest: string): string {
  const dir = inject('packDir');
  if (!dir) return packTarball(dest);
  const done = join(dir, 'tarball.json');
  try {
    mkdirSync(join(dir, 'packing'));
  } catch {
    // Another file is packing: wait for its answer (a path, or what failed).
    const pause = new Int32Array(new SharedArrayBuffer(4));
    const until = Date.now() + 300_000;
    while (!existsSync(done)) {
      if (Date.now() > until) throw new Error(`the shared tarball in ${dir} never appeared`);
      Atomics.wait(pause, 0, 0, 100);
    }
    const answer = JSON.parse(readFileSync(done, 'utf8')) as { tarball?: string; error?: string };
    if (answer.error !== undefined) throw new Error(answer.error);
    return answer.tarball as string;
  }
  let answer: { tarball?: string; error?: string };
  try {
    answer = { tarball: packTarball(dir) };
  } catch (e) {
    answer = { error: (e as Error).message };
  }
  writeFileSync(`${done}.tmp`, JSON.stringify(answer));
  renameSync(`${done}.tmp`, done);
  if (answer.error !== undefined) throw new Error(answer.error);
  return answer.tarball as string;
}

/**
 * The project as `npm install ./runledger-<version>.tgz` leaves it, offline: the tarball unpacked into
 * node_modules/runledger, and runledger's production dependencies (never its dev ones, so no @types/node) linked
 * beside it, as npm hoists them. The links reach this checkout's node_modules, so better-sqlite3 is the one built
 * for the Node that runs the tests.
 */
export function installOffline(project: string, tarball: string): void {
  const target = join(project, 'node_modules/runledger');
  mkdirSync(target, { recursive: true });
  run('tar', ['xzf', tarball, '-C', target, '--strip-components=1'], project);
  const production = run('npm', ['ls', '--omit=dev', '--all', '--parseable'], ROOT).trim().split('\n').slice(1);
  for (const path of production) {
    const rel = relative(join(ROOT, 'node_modules'), path);
    if (rel.includes('node_modules')) continue; // nested copies come with their parent's link
    mkdirSync(dirname(join(project, 'node_modules', rel)), { recursive: true });
    symlinkSync(path, join(project, 'node_modules', rel));
  }
}
