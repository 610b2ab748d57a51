import type { Command } from 'commander';

/**
 * Makes commander's usage errors one line, as every runledger error is: `error: unknown command 'bogus'` plus
 * "(Did you mean …?)" on a second line and a help hint on a third become
 * `runledger: unknown command 'bogus' (did you mean state?); see runledger --help`.
 * Applied to every command, so the hint names the command that failed to parse.
 *
 * @example
 * oneLineUsageErrors(program); // after every command is registered
 */
export function oneLineUsageErrors(program: Command): void {
  const visit = (command: Command, path: string) => {
    command.showHelpAfterError(false).configureOutput({
      outputError: (text, write) => write(`${oneLine(text)}; see ${path} --help\n`),
    });
    for (const sub of command.commands) visit(sub, `${path} ${sub.name()}`);
  };
  visit(program, program.name());
}

function oneLine(text: string): string {
  const joined = text
    .trim()
    .replace(/^error: /, '')
    .replace(/\s*\n\s*\((Did you mean[^)]*)\)/, (_, suggestion: string) => ` (${suggestion.replace(/^Did/, 'did')})`)
    .replace(/\s*\n\s*/g, ' ');
  return `runledger: ${joined}`;
}

const GLOBAL_OPTIONS_WITH_VALUE = ['--db', '--now', '--actor'];

/**
 * True when the command line names no command (only global options, or nothing): a bare `runledger` prints its
 * help on stdout and exits 2, as git and npm print theirs on stdout and fail (they exit 1, which runledger keeps
 * for unexpected errors; 2 is its usage error).
 *
 * @example
 * namesNoCommand(['--db', 'x.db']) // true
 */
export function namesNoCommand(argv: readonly string[]): boolean {
  for (let i = 0; i < argv.length; i += 1) {
    const token = argv[i] as string;
    if (GLOBAL_OPTIONS_WITH_VALUE.includes(token)) i += 1;
    else if (!GLOBAL_OPTIONS_WITH_VALUE.some((option) => token.startsWith(`${option}=`))) return false;
  }
  return true;
}
