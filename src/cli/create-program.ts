import { terminalText } from '../format/terminal-text.js';
import { Command, CommanderError } from 'commander';
import { ExitCode, isLedgerError } from '../errors.js';
import { toolVersion } from '../runtime.js';
import { CliContext, type CliDeps, type GlobalOptions } from './cli-context.js';
import { registerClearCommand } from './commands/clear-command.js';
import { registerControlCommands } from './commands/control-commands.js';
import { registerDefineCommands } from './commands/define-command.js';
import { registerMarkCommand } from './commands/mark-command.js';
import { registerQueryCommands } from './commands/query-commands.js';
import { registerRunCommands } from './commands/run-commands.js';
import { registerTaskCommands } from './commands/task-commands.js';
import { namesNoCommand, oneLineUsageErrors } from './usage-errors.js';

/** Extra commands added by other modules (backfill, audit, demo) register themselves through this. */
export type CommandRegistrar = (program: Command, ctx: CliContext) => void;

/**
 * Builds the `runledger` program with its output and environment injected, so
 * tests run it in-process. Only `main.ts` touches `process`.
 *
 * @example
 * const program = createProgram({ stdout: console.log, stderr: console.error, env: {}, clock: Date.now, isTTY: false });
 */
export function createProgram(deps: CliDeps, extra: CommandRegistrar[] = []): Command {
  const program = new Command('runledger');
  const ctx = new CliContext(deps, () => program.opts<GlobalOptions>());
  program
    .description('An event-sourced run ledger for scheduled data pipelines: which dates ran, failed or are missing, and re-run only those.')
    .version(toolVersion, '-V, --version')
    .option('--db <path|url>', 'ledger: a SQLite file or a postgres:// URL (default: $RUNLEDGER_DB, then ./runledger.db)')
    .option('--now <instant>', 'fix the clock, e.g. 2026-11-05T01:00:00+07:00 (default: $RUNLEDGER_NOW, then the real time)')
    .option('--actor <name>', 'who is acting, recorded in every event (default: $RUNLEDGER_ACTOR, then user@host)')
    .option('--max-clock-skew <duration>', "how far ahead of the clock a producer's own time (--at, an OpenLineage eventTime) may be (default: $RUNLEDGER_MAX_CLOCK_SKEW, then 5m)")
    .option('--max-event-age <duration>', "how far behind the clock a producer's own time may be (default: $RUNLEDGER_MAX_EVENT_AGE, then 3650d)")
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({ writeOut: deps.stdout, writeErr: deps.stderr })
    .addHelpText(
      'after',
      '\nExit codes: 0 done, 2 bad input, 3 refused by a rule, 4 not found, 5 integrity failure,\n' +
        '6 a backfill/catchup run failed, 7 a check does not hold (check), 1 unexpected.\n\n' +
        'A first session:\n' +
        '  runledger define etl_orders --schedule @daily --start 2026-11-02 --tz Asia/Jakarta\n' +
        '  runledger pending etl_orders\n' +
        '  RUN=$(runledger start etl_orders 2026-11-02) && runledger succeed "$RUN" --metrics \'{"rows": 42}\'\n' +
        '  runledger state etl_orders',
    );
  registerDefineCommands(program, ctx);
  registerRunCommands(program, ctx);
  registerTaskCommands(program, ctx);
  registerClearCommand(program, ctx);
  registerMarkCommand(program, ctx);
  registerControlCommands(program, ctx);
  registerQueryCommands(program, ctx);
  for (const register of extra) register(program, ctx);
  oneLineUsageErrors(program);
  return program;
}

/**
 * Runs one command line and returns its exit code. Errors are one line on
 * stderr; commander's usage errors become exit 2, and so does a command line
 * without a command (after printing the help on stdout).
 */
export async function runCli(argv: string[], deps: CliDeps, extra: CommandRegistrar[] | ((word: string | undefined) => Promise<CommandRegistrar[]>) = []): Promise<number> {
  const program = await programFor(argv, deps, extra);
  if (namesNoCommand(argv)) {
    program.outputHelp();
    return ExitCode.badInput;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    await deps.flush?.();
    return ExitCode.ok;
  } catch (error) {
    // When the command failed, its own error line is the one to print; a write that also failed adds nothing.
    if (!(isLedgerError(error) && error.code.startsWith('output.'))) await deps.flush?.().catch(() => undefined);
    if (error instanceof CommanderError) {
      const done = ['commander.helpDisplayed', 'commander.help', 'commander.version'].includes(error.code);
      return done ? ExitCode.ok : ExitCode.badInput;
    }
    if (isLedgerError(error)) {
      // A refusal may quote what the caller sent (a date, a name, a text): shown, never obeyed by the terminal.
      deps.stderr(`runledger: ${terminalText(error.message, { keepLines: true })}\n`);
      return error.exitCode;
    }
    if (error instanceof RunExit) return error.exitCode;
    const message = error instanceof Error ? error.message : String(error);
    deps.stderr(`runledger: unexpected error: ${terminalText(message, { keepLines: true })}${deps.env['RUNLEDGER_DEBUG'] && error instanceof Error ? `\n${error.stack}` : ''}\n`);
    return ExitCode.unexpected;
  }
}

/**
 * The program for one command line: extra commands given as a loader are
 * loaded only when the line does not name a core command, and the loader is
 * told the word it names (so it loads that command's module, while `--help`
 * or a typo still see every command).
 */
async function programFor(argv: string[], deps: CliDeps, extra: CommandRegistrar[] | ((word: string | undefined) => Promise<CommandRegistrar[]>)): Promise<Command> {
  if (Array.isArray(extra)) return createProgram(deps, extra);
  const core = createProgram(deps);
  const word = commandWord(argv);
  const versionOnly = word === undefined && (argv.includes('--version') || argv.includes('-V')) && !argv.includes('--help') && !argv.includes('-h');
  if (versionOnly) return core;
  if (word !== undefined && core.commands.some((c) => c.name() === word || c.aliases().includes(word))) return core;
  return createProgram(deps, await extra(word));
}

/** The first word of a command line that is not a global option or its value. */
function commandWord(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--db' || arg === '--now' || arg === '--actor') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return undefined;
}

/** Thrown by commands that finished but must exit non-zero without an error line (e.g. backfill with failures). */
export class RunExit extends Error {
  readonly exitCode: number;
  constructor(exitCode: number) {
    super(`exit ${exitCode}`);
    this.exitCode = exitCode;
  }
}
