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
  return programWith(deps, [...CORE_GROUPS.map((group) => group.register), ...extra]);
}

/**
 * The core commands, by the module that registers them (in the order `runledger --help` lists them), with the
 * names each registers: a command line that names one of them needs only its group (see programFor).
 */
const CORE_GROUPS: readonly { register: CommandRegistrar; names: readonly string[] }[] = [
  { register: registerDefineCommands, names: ['define', 'pipelines'] },
  { register: registerRunCommands, names: ['start', 'succeed', 'fail', 'heartbeat'] },
  { register: registerTaskCommands, names: ['task'] },
  { register: registerClearCommand, names: ['clear'] },
  { register: registerMarkCommand, names: ['mark'] },
  { register: registerControlCommands, names: ['pause', 'unpause', 'retire', 'unretire'] },
  { register: registerQueryCommands, names: ['state', 'watermark', 'pending', 'runs', 'log'] },
];

/** The program with its global options and the commands of `registrars`. */
function programWith(deps: CliDeps, registrars: readonly CommandRegistrar[]): Command {
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
  for (const register of registrars) register(program, ctx);
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
 * The program for one command line. A line that names its command after nothing but global options (with their
 * values) gets the global options and that command's group alone, its extra module loaded if it is one: all that
 * line can print (the command's help, its usage errors, suggestions among its options and the global ones) comes
 * from them, and building every command's options cost a cold query a tenth of its start. Any other line (`--help`,
 * a typo, an option first, no command) gets every command, core and extra, so help and "did you mean" see them all;
 * `--version` alone needs no extra command.
 */
async function programFor(argv: string[], deps: CliDeps, extra: CommandRegistrar[] | ((word: string | undefined) => Promise<CommandRegistrar[]>)): Promise<Command> {
  if (Array.isArray(extra)) return createProgram(deps, extra);
  const word = namedCommand(argv);
  const group = word === undefined ? undefined : CORE_GROUPS.find((g) => g.names.includes(word));
  if (group !== undefined) return programWith(deps, [group.register]);
  if (word !== undefined) {
    const program = programWith(deps, await extra(word));
    if (program.commands.some((c) => c.name() === word)) return program;
  }
  const versionOnly = commandWord(argv) === undefined && (argv.includes('--version') || argv.includes('-V')) && !argv.includes('--help') && !argv.includes('-h');
  return createProgram(deps, versionOnly ? [] : await extra(undefined));
}

const GLOBAL_OPTIONS_WITH_VALUE = ['--db', '--now', '--actor', '--max-clock-skew', '--max-event-age'];

/**
 * The command a line names when nothing but global options (each with its value) comes before it, as commander
 * reads the line; undefined for any other line (an unknown or other option first, no command at all).
 */
function namedCommand(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (GLOBAL_OPTIONS_WITH_VALUE.includes(arg)) i++;
    else if (!arg.startsWith('-')) return arg;
    else if (!GLOBAL_OPTIONS_WITH_VALUE.some((option) => arg.startsWith(`${option}=`))) return undefined;
  }
  return undefined;
}

/** The first word of a command line that is not a global option or its value. */
function commandWord(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (GLOBAL_OPTIONS_WITH_VALUE.includes(arg)) i++;
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
