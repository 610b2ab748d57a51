import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { LedgerError } from '../errors.js';

/** The placeholders the runner fills in each argument. */
export const PLACEHOLDERS = ['date', 'start', 'end', 'runId'] as const;

/** `{name}` not preceded by `$` (a shell's `${HOME}` is the shell's business), name an identifier. */
const BRACED_NAME = /(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Refuses a backfill or catchup command before its first run starts (exit 2, nothing recorded): an argument with a
 * placeholder the runner does not fill (`{foo}` would reach the command literally), or a program that does not
 * exist (every date would be recorded, forever, as a failed attempt with `spawn:ENOENT`). Other braces
 * (`awk '{print $1}'`, `find -exec … {} +`, `${HOME}`) are left alone.
 *
 * @example
 * checkCommand(['node', 'etl.mjs', '--date', '{date}'], { env: process.env, cwd: process.cwd() });
 */
export function checkCommand(argv: readonly string[], where: { env: Readonly<Record<string, string | undefined>>; cwd?: string | undefined }): void {
  argv.forEach((arg, index) => {
    for (const [, name] of arg.matchAll(BRACED_NAME)) {
      if (!(PLACEHOLDERS as readonly string[]).includes(name as string)) {
        throw new LedgerError(
          'input.unknownPlaceholder',
          `the command's argument ${index + 1} ('${arg}') has the placeholder {${name}}, which the runner does not fill; use ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')} or the RUNLEDGER_* environment`,
        );
      }
    }
  });
  const program = argv[0];
  if (program === undefined || process.platform === 'win32') return;
  if (findProgram(program, where.env['PATH'] ?? '', where.cwd ?? process.cwd()) === undefined) {
    const how = program.includes('/') ? `'${program}' is not an executable file` : `'${program}' is not an executable on the PATH`;
    throw new LedgerError('input.commandNotFound', `${how}; nothing was run or recorded. Check the command after --`);
  }
}

/** Where `spawn` would find `program` (as execvp does), or undefined. */
function findProgram(program: string, path: string, cwd: string): string | undefined {
  // Found once in this turn of the event loop, found: a scheduler making the tasks of 10,000 pipelines that run
  // `true` looked it up 10,000 times. Kept no longer than the turn, so a program removed later is looked up again.
  const key = `${program}\0${path}\0${cwd}`;
  const known = foundThisTurn.get(key);
  if (known !== undefined) return known;
  const found = lookUp(program, path, cwd);
  if (found !== undefined) {
    if (foundThisTurn.size === 0) setImmediate(() => foundThisTurn.clear());
    foundThisTurn.set(key, found);
  }
  return found;
}

const foundThisTurn = new Map<string, string>();

function lookUp(program: string, path: string, cwd: string): string | undefined {
  const candidates = program.includes('/')
    ? [isAbsolute(program) ? program : resolve(cwd, program)]
    : path.split(delimiter).map((dir) => join(dir === '' ? cwd : resolve(cwd, dir), program));
  return candidates.find(isExecutableFile);
}

function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
