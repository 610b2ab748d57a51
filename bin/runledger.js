#!/usr/bin/env node
// The CLI as bundled by `npm run build` (scripts/build-cli.mjs): a few CommonJS files in dist/cli/ instead of ~140
// modules, started with a V8 code cache so that a start does not parse and compile the core chunk all over again.
// This file is CommonJS too (bin/package.json): an ES module entry costs Node its ESM loader, a fifth of `node -e 0`.
//
// The cache (docs/performance.md, "The CLI's code cache") lives in $NODE_COMPILE_CACHE, else in
// <tmpdir>/runledger-compile-cache-<uid>; NODE_DISABLE_COMPILE_CACHE=1 turns it off. It never changes what a command
// does: a missing cache is compiled past, one V8 rejects (another Node, other flags) is written again, and a folder
// that cannot be written leaves the CLI running without one.
'use strict';
const { isAscii } = require('node:buffer');
const { closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { Script } = require('node:vm');
const { basename, dirname, join } = require('node:path');

const bundle = join(__dirname, '../dist/cli');
const argv = process.argv.slice(2);
const cacheDir = process.env.NODE_COMPILE_CACHE || join(tmpdir(), `runledger-compile-cache-${process.getuid?.() ?? 'user'}`);

// `runledger --version` alone is answered by main.js's first few lines: nothing here would pay for itself.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) require('../dist/cli/main.js');
else {
  // A command line is short: on Node 20, V8's optimizing compiler, which starts on a function after ~66 KB of its
  // bytecode ran, spent more instructions compiling than the code it optimized saved (a third of a cold `status` on
  // 1,000 pipelines). Eight times that budget leaves it to code that runs long (a rebuild, a verify, the server).
  // Node 22 and later tier up through Maglev first, with other flags: left as they are.
  if (process.versions.node.startsWith('20.')) setV8Flags('--interrupt-budget=524288');
  if (process.env.NODE_DISABLE_COMPILE_CACHE) require('../dist/cli/main.js');
  else if (typeof compileCacheOfNode() === 'function') {
    // Node 22 and later: Node's own compile cache (checksummed), which covers the dependencies too; in a folder that is
    // this user's alone, as on Node 20 (a folder another user made first in a shared /tmp would run their code cache).
    try {
      if (safeCacheDir()) require('node:module').enableCompileCache(cacheDir);
    } catch {
      // No cache is no reason to stop.
    }
    require('../dist/cli/main.js');
  } else cachedRequire(join(bundle, 'main.js'));
}

/**
 * Node's module.enableCompileCache (Node 22.1 and later). Node 20 has none, and loading node:module to ask would cost
 * its every start 5M instructions: asked there only when something loaded node:module already (a preload).
 */
function compileCacheOfNode() {
  if (process.versions.node.startsWith('20.') && !(process.moduleLoadList ?? []).includes('NativeModule module')) return undefined;
  return require('node:module').enableCompileCache;
}

/**
 * V8's flags set from here, on Node 20 (the only Node this file sets any on). `node:v8` would load Node's whole streams
 * stack with it (its heap snapshot code reads through a Readable: 23 modules, 7M instructions of a cold `status`, which
 * writes to fd 1 without a stream); its setFlagsFromString is a call into the v8 binding, asked for here directly.
 * Node 20 warns that process.binding('v8') is deprecated: that warning is not for this call, which no later Node makes
 * (the binding's API is frozen with Node 20 itself), so it is silenced for this call alone. Where the binding cannot
 * be had (the permission model refuses process.binding), `node:v8` does it as before.
 */
function setV8Flags(flags) {
  let binding;
  // Under --no-deprecation the flag is already set, and read-only: left alone. One that cannot be set (read-only and
  // false) throws here, and node:v8 does the work instead.
  let silenced = false;
  try {
    if (!process.noDeprecation) {
      process.noDeprecation = true;
      silenced = true;
    }
    binding = process.binding('v8');
  } catch {
    // Refused: node:v8 below.
  } finally {
    // Put back only what was set here: a flag that could not be set (read-only and false) would throw again.
    if (silenced) process.noDeprecation = false;
  }
  if (typeof binding?.setFlagsFromString === 'function') binding.setFlagsFromString(flags);
  else require('node:v8').setFlagsFromString(flags);
}

/**
 * Node 20 (no compile cache of its own): loads a bundle file as Node's require would (the same wrapper function, the
 * bundle's own files through this, everything else through Node), compiled with the V8 code cache written beside it
 * after an earlier start. Only the chunks, whose names carry a hash of their content, are cached: a cache is never
 * used for other code of the same length (all V8 checks of the source itself).
 */
function cachedRequire(main) {
  // V8 checks a cache's version, flags, source length and payload length, but its checksum only with this flag (off in
  // release builds): without it, a cache of the right length whose bytes went bad (zeroed blocks after a crash, a
  // disk error) was deserialized as it was and crashed the CLI (SIGSEGV) on every start until the file was removed.
  // Set before anything is compiled or written, so every cache carries a checksum and is checked against it.
  setV8Flags('--verify-snapshot-checksum');
  const word = commandWord(argv);
  // V8 keeps the script's file name in the cache: a cache written by another install of the same build would name
  // that install's files in every stack trace, so each install (its dist/cli folder) has caches of its own.
  const install = pathTag(bundle);
  const loaded = new Map();
  const written = [];
  const dirOk = safeCacheDir();
  const load = (file) => {
    const known = loaded.get(file);
    if (known !== undefined) return known.exports;
    const module = { exports: {}, filename: file, id: file, loaded: false };
    loaded.set(file, module);
    // The build writes ASCII (scripts/build-cli.mjs): read as such, one byte a character, without decoding UTF-8.
    const bytes = readFileSync(file);
    const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    const hashed = dirOk && /-[\w-]{8}\.js$/.test(file);
    const cacheFile = hashed ? join(cacheDir, `${basename(file, '.js')}-${install}-${word}-${process.version}-${process.arch}.v8cache`) : '';
    let cachedData;
    if (hashed) {
      try {
        cachedData = readFileSync(cacheFile);
      } catch {
        // None yet.
      }
    }
    // The build wrote each file as the function Node's loader would wrap it in (scripts/build-cli.mjs, `wrapped`).
    const script = new Script(source, { filename: file, ...(cachedData ? { cachedData } : {}) });
    if (hashed && (cachedData === undefined || script.cachedDataRejected)) written.push({ script, cacheFile });
    const local = (request) => (request.startsWith('./') ? load(join(dirname(file), request)) : require(request));
    script.runInThisContext()(module.exports, local, module, file, dirname(file));
    module.loaded = true;
    return module.exports;
  };
  if (dirOk) {
    process.once('exit', (code) => {
      // Only a run that went to its end writes: a cache holds what its run compiled, so one written by a run that
      // stopped early (a mistyped --db: exit 4, bad input: 2, a refusal: 3, a crash: 1) would be accepted by every
      // later start and leave most of the command to compile each time, until the next upgrade. A verify that found
      // damage (5), a backfill with a failed run (6) and a check that does not hold (7) did all their work: a
      // `check` run from cron may fail for days.
      if (written.length === 0 || !(code === 0 || code === 5 || code === 6 || code === 7)) return;
      written.forEach(writeCache);
      pruneCache(install);
    });
  }
  return load(main);
}

/**
 * The command a line names (`status`, `state`, …), which a cache is kept for: a cache holds the functions its first run
 * compiled, and V8 compiles the rest each time (a cache written by `define` would leave most of `status` to compile).
 */
/** A short tag of a folder's path (32-bit FNV-1a, hex): node:crypto would cost more than the cache saves. */
function pathTag(path) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) hash = Math.imul(hash ^ path.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}

function commandWord(argv) {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (['--db', '--now', '--actor', '--max-clock-skew', '--max-event-age'].includes(arg)) i++;
    else if (!arg.startsWith('-')) return /^[a-z][a-z-]{0,31}$/.test(arg) ? arg : 'other';
  }
  return 'other';
}

/** The cache folder, made if absent, and only when it is this user's alone (no one else's code cache is run). */
function safeCacheDir() {
  try {
    mkdirSync(cacheDir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(cacheDir);
    const uid = process.getuid?.();
    return stat.isDirectory() && (uid === undefined || (stat.uid === uid && (stat.mode & 0o022) === 0));
  } catch {
    return false;
  }
}

/**
 * Removes this install's caches of chunks it no longer has (an earlier build or release: chunk names carry a hash of
 * their content), which nothing would read again; asked only after a start wrote a cache, which an upgrade or a build
 * makes the first start of each command do. Another install's files (its tag differs) are its own to prune.
 */
function pruneCache(install) {
  try {
    const current = new Set(readdirSync(bundle).filter((name) => /-[\w-]{8}\.js$/.test(name)).map((name) => `${basename(name, '.js')}-${install}-`));
    for (const name of readdirSync(cacheDir)) {
      const at = name.indexOf(`-${install}-`);
      if (at < 0 || !name.endsWith('.v8cache') || current.has(name.slice(0, at + install.length + 2))) continue;
      rmSync(join(cacheDir, name), { force: true });
    }
  } catch {
    // A cache that cannot be pruned costs disk space, never a command.
  }
}

/** The code cache of a script as it stands after this run (with the functions it ran), written whole or not at all. */
function writeCache({ script, cacheFile }) {
  const temp = `${cacheFile}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    const fd = openSync(temp, 'wx', 0o600);
    try {
      for (let at = 0; at < data.length; ) at += writeSync(fd, data, at);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, cacheFile);
  } catch {
    // An unwritable cache is no reason to fail: the next start compiles again.
    rmSync(temp, { force: true });
  }
}
