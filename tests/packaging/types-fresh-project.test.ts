// A consumer's fresh project: `npm install` of the packed tarball from the registry (so its dependency ranges resolve
// as they do for every user today), with TypeScript 5.9 and the registry's latest TypeScript side by side, and
// @types/node. One install, then a type check per cell of the matrix: TypeScript 5.9 and latest × module nodenext,
// node16 and bundler × target es2022 and esnext × with and without @types/node, strict, skipLibCheck off (so
// runledger's own .d.ts are checked), plus a CommonJS file under nodenext. The same install must print no
// EBADENGINE on this Node.
//
// A cell passes when its check reports nothing, as `tsc --noEmit` would. TypeScript 5.9 runs in this process through
// its API (`createProgram` + `getPreEmitDiagnostics`, what tsc does), with a compiler host that keeps each parsed and
// bound declaration file for the next cell whose parse inputs are the same: a cell spent most of its time starting
// tsc and parsing the same 250–400 files again. When runledger adds nothing global to a cell's program (its files
// are modules that augment nothing, and every other file is also in the program of an empty project with the same
// options), the other files' semantic diagnostics are left out: TypeScript's lib files and @types/node declare and
// see the same with runledger or without, so an error in them is not runledger's (checking them was two thirds of
// an in-process cell). The consumer's file and every runledger declaration are checked in every cell. A cell where
// runledger adds a lib (es2022 without @types/node: ledger.d.ts references `esnext.disposable`) is checked whole.
// The latest TypeScript (7, a native binary) runs as `tsc -p` per cell, one at a time beside the in-process checks,
// on the whole program.
//
// This file needs the registry (`npm view typescript version` names "the latest"); npm's own cache makes the
// install quick after the first run. Without the registry it fails, saying so: a skipped matrix would hide a broken
// promise.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as TypeScript from 'typescript';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROOT, run, sharedTarball } from './packed-tarball.js';

const ts59 = (JSON.parse(run('npm', ['pkg', 'get', 'devDependencies.typescript'], ROOT)) as string).replace(/^\D*/, '');
let project = '';
let installOutput = '';
let latest = '';

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), 'runledger-consumer-'));
  const view = spawnSync('npm', ['view', 'typescript', 'version'], { encoding: 'utf8' });
  if (view.status !== 0) throw new Error(`npm view typescript version failed; this test installs from the registry: ${view.stderr.trim()}`);
  latest = view.stdout.trim();
  const tarball = sharedTarball(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }));
  const install = spawnSync(
    'npm',
    ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=warn', tarball, `ts-now@npm:typescript@${ts59}`, `ts-latest@npm:typescript@${latest}`, '@types/node'],
    { cwd: project, encoding: 'utf8' },
  );
  installOutput = install.stdout + install.stderr;
  if (install.status !== 0) throw new Error(`npm install of the packed tarball failed: ${installOutput}`);
  writeFileSync(join(project, 'consumer.ts'), CONSUMER_ESM);
  writeFileSync(join(project, 'consumer.cts'), CONSUMER_CJS);
  // What a project that does not import runledger holds (see runledgerAddsNothingGlobal).
  writeFileSync(join(project, 'empty.ts'), 'export {};');
  writeFileSync(join(project, 'empty.cts'), 'export {};');
  startLatestCells();
}, 600_000);
afterAll(async () => {
  // A cell not awaited (a filtered or failed run) must not start, nor write into the project once it is removed.
  closing = true;
  await running;
  if (project !== '') rmSync(project, { recursive: true, force: true });
});

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

type Module = 'nodenext' | 'node16' | 'bundler';
type Cell = { module: Module; target: 'es2022' | 'esnext'; node: boolean; file: 'consumer.ts' | 'consumer.cts' };
// Target outermost: cells of one target parse their files alike, so the in-process cache is dropped between targets.
const matrix: Cell[] = [];
for (const target of ['es2022', 'esnext'] as const)
  for (const module of ['nodenext', 'node16', 'bundler'] as const) for (const node of [false, true]) matrix.push({ module, target, node, file: 'consumer.ts' });
const cjs: Cell = { module: 'nodenext', target: 'es2022', node: false, file: 'consumer.cts' };
const cellName = (c: Cell): string => `${c.module}-${c.target}-${c.node ? 'node' : 'none'}${c.file === 'consumer.cts' ? '-cjs' : ''}`;

/** The compiler options a consumer's tsconfig.json of this cell says. */
function tsconfigOptions(c: Cell): Record<string, unknown> {
  const moduleOptions = c.module === 'bundler' ? { module: 'preserve', moduleResolution: 'bundler' } : { module: c.module, moduleResolution: c.module };
  return { strict: true, noEmit: true, skipLibCheck: false, ...moduleOptions, target: c.target, types: c.node ? ['node'] : [] };
}

type Checked = { output: string; files: string[] };

/** The consumer's file of the cell and runledger's declaration files: what a cell's check is about. */
const isOwn = (f: { fileName: string }, c: Cell): boolean => f.fileName.includes('/node_modules/runledger/') || f.fileName === join(project, c.file);

/**
 * TypeScript 5.9 in this process: one program per cell, and tsc's pre-emit diagnostics. A declaration file is parsed
 * and bound once per set of inputs that shape its SourceFile: the file, the language version, its module format
 * (ESM or CommonJS, from the nearest package.json), JSDoc parsing, and how module detection is decided (every file a
 * module under node16/nodenext, by its imports otherwise). The options the binder reads (strict, unused labels,
 * unreachable code) are the same in every cell.
 */
function checkInProcess(): (c: Cell) => Checked {
  const ts = createRequire(join(project, 'package.json'))('ts-now') as typeof TypeScript;
  const detection = (o: TypeScript.CompilerOptions): string =>
    String(o.moduleDetection ?? (o.module === ts.ModuleKind.Node16 || o.module === ts.ModuleKind.NodeNext ? 'force' : 'auto'));
  let cache = new Map<string, TypeScript.SourceFile>();
  let cachedVersion: TypeScript.ScriptTarget | undefined;
  /**
   * True when runledger's files are modules that augment nothing (no `declare global`, no `declare module`) and every
   * other file of the program but the consumer's is also in the program of a project that does not import runledger
   * (the same options, an empty file of the same kind): then the other files declare and see the same with runledger
   * or without. A runledger file that adds a lib (`/// <reference lib>`, as ledger.d.ts does for `esnext.disposable`
   * under es2022) or a package's types makes the cell a whole-program check.
   */
  const addsNothingGlobal = (program: TypeScript.Program, c: Cell, host: TypeScript.CompilerHost): boolean => {
    const own = program.getSourceFiles().filter((f) => isOwn(f, c));
    const augments = (f: TypeScript.SourceFile): boolean =>
      f.statements.some((s) => ts.isModuleDeclaration(s) && (ts.isStringLiteral(s.name) || s.name.text === 'global'));
    if (own.some((f) => !ts.isExternalModule(f) || augments(f))) return false;
    const empty = join(project, c.file === 'consumer.cts' ? 'empty.cts' : 'empty.ts');
    const without = new Set(ts.createProgram({ rootNames: [empty], options: program.getCompilerOptions(), host }).getSourceFiles().map((f) => f.fileName));
    return program.getSourceFiles().every((f) => isOwn(f, c) || without.has(f.fileName));
  };
  /** What `getPreEmitDiagnostics` gives, with the semantic diagnostics of the given files only. */
  const preEmitDiagnosticsOf = (program: TypeScript.Program, files: TypeScript.SourceFile[]): TypeScript.Diagnostic[] => [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getSyntacticDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...files.flatMap((f) => program.getSemanticDiagnostics(f)),
  ];
  return (c) => {
    const { options, errors } = ts.convertCompilerOptionsFromJson(tsconfigOptions(c), project);
    const host = ts.createCompilerHost(options);
    const parse = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, version, onError, fresh) => {
      const how = typeof version === 'object' ? version : { languageVersion: version };
      if (how.languageVersion !== cachedVersion) [cache, cachedVersion] = [new Map(), how.languageVersion];
      const key = [fileName, how.languageVersion, how.impliedNodeFormat, how.jsDocParsingMode, detection(options)].join('\0');
      const cached = fresh ? undefined : cache.get(key);
      if (cached) return cached;
      const parsed = parse(fileName, version, onError, fresh);
      if (parsed?.isDeclarationFile) cache.set(key, parsed);
      return parsed;
    };
    const program = ts.createProgram({ rootNames: [join(project, c.file)], options, host });
    // The semantic diagnostics of the other files (TypeScript's lib files, @types/node) are the same in a project
    // that does not import runledger when runledger adds nothing to what they see: not runledger's to keep.
    const own = addsNothingGlobal(program, c, host) ? program.getSourceFiles().filter((f) => isOwn(f, c)) : undefined;
    const diagnostics = [...errors, ...(own === undefined ? ts.getPreEmitDiagnostics(program) : preEmitDiagnosticsOf(program, own))];
    const format: TypeScript.FormatDiagnosticsHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => project, getNewLine: () => '\n' };
    return { output: ts.formatDiagnostics(diagnostics, format), files: program.getSourceFiles().map((f) => f.fileName) };
  };
}

/** Runs the latest TypeScript's tsc on a tsconfig.json of its own in the shared project; resolves with what it printed. */
function tscLatest(c: Cell): Promise<Checked> {
  const dir = join(project, `ts-latest-${cellName(c)}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: tsconfigOptions(c), files: [`../${c.file}`] }, null, 2));
  const tsc = join(project, 'node_modules/ts-latest/bin/tsc');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsc, '-p', dir, '--listFiles'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      // --listFiles prints every file of the program, one absolute path a line; anything else is a diagnostic.
      const lines = out.split('\n').filter((line) => line !== '');
      const files = lines.filter((line) => line.startsWith('/'));
      const output = lines.filter((line) => !line.startsWith('/')).join('\n');
      resolve({ output: code === 0 ? output : `${output}\n(tsc exited ${code})`, files });
    });
  });
}

// The latest TypeScript's cells run one at a time from the end of the install, in the tests' order, beside the
// in-process checks; a test whose cell has not started yet (a filtered run) moves it to the front of the queue.
type Pending = { cell: Cell; result: Promise<Checked>; settle: (r: Checked | Error) => void };
const latest7 = new Map<string, Pending>();
const queue: Pending[] = [];
let running: Promise<unknown> | undefined;
let closing = false;
function startLatestCells(): void {
  for (const cell of [...matrix, cjs]) {
    let settle: Pending['settle'] = () => {};
    const result = new Promise<Checked>((resolve, reject) => (settle = (r) => (r instanceof Error ? reject(r) : resolve(r))));
    result.catch(() => undefined); // awaited by its test; a cell no test awaited must not fail the file
    const pending = { cell, result, settle };
    latest7.set(cellName(cell), pending);
    queue.push(pending);
  }
  next();
}
function next(): void {
  const pending = running === undefined && !closing ? queue.shift() : undefined;
  if (pending === undefined) return;
  running = tscLatest(pending.cell).then(pending.settle, (e: Error) => pending.settle(e));
  void running.finally(() => {
    running = undefined;
    next();
  });
}
function latestCell(c: Cell): Promise<Checked> {
  const pending = latest7.get(cellName(c));
  if (pending === undefined) throw new Error(`no cell ${cellName(c)}: the install did not finish`);
  const at = queue.indexOf(pending);
  if (at > 0) queue.unshift(...queue.splice(at, 1));
  return pending.result;
}

/** What every cell's program must hold: the consumer's file and runledger's own declarations, checked with it. */
function expectChecked(r: Checked, c: Cell): void {
  expect(r.output).toBe('');
  expect(r.files.some((f) => f.endsWith(`/${c.file}`))).toBe(true);
  expect(r.files.filter((f) => f.includes('/node_modules/runledger/dist/')).length).toBeGreaterThan(50);
  // The declarations name the plain event types (events/types/), never zod's: zod is a runtime dependency only,
  // and its declaration files were a third of every consumer's check.
  expect(r.files.filter((f) => f.includes('/node_modules/zod/'))).toEqual([]);
}

describe('the packed tarball in a fresh project', () => {
  test('installs with no EBADENGINE warning on this Node', () => {
    expect(installOutput).not.toMatch(/EBADENGINE/);
  });

  test('the latest TypeScript is a different release line from 5.9, so the matrix covers two', () => {
    expect(latest.split('.')[0]).not.toBe(ts59.split('.')[0]);
  });

  let check59: (c: Cell) => Checked;
  test.each(matrix)('ts-now, module $module, target $target, @types/node $node: no diagnostics (tsc --noEmit in process)', (c) => {
    check59 ??= checkInProcess();
    expectChecked(check59(c), c);
  });

  test('ts-now: a CommonJS file (.cts) under module nodenext imports the ESM package (require of ES modules)', () => {
    check59 ??= checkInProcess();
    expectChecked(check59(cjs), cjs);
  });

  test.each(matrix)('ts-latest, module $module, target $target, @types/node $node: tsc --noEmit passes', async (c) => {
    expectChecked(await latestCell(c), c);
  });

  test('ts-latest: a CommonJS file (.cts) under module nodenext imports the ESM package (require of ES modules)', async () => {
    expectChecked(await latestCell(cjs), cjs);
  });
});
