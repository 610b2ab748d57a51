import { spawn } from 'node:child_process';
import type { PipelineCommand } from '../../events/pipeline-definition.js';
import { commandArgv } from '../runner/command-argv.js';
import { commandTask, type CommandTask, type CommandTaskOptions } from '../runner/command-task.js';
import type { GroupReaper } from '../runner/group-reaper.js';
import { childEnvironment, knownSecrets } from '../secrets.js';
import type { CliContext } from './cli-context.js';

/** What every command of a fleet shares, as `catchup --all` and `scheduler` set it up from their options. */
export type FleetCommandSetup = {
  ctx: CliContext;
  /** `--pass-ledger-env`: the commands see RUNLEDGER_DB and friends. */
  passLedgerEnv: boolean;
  killGraceMs: number;
  /** The runner's watchdog, which kills the commands' groups if the runner dies. */
  reaper: GroupReaper;
  /** Where run logs go; undefined with `--no-logs`. */
  logDir: string | undefined;
};

/**
 * The task that runs one pipeline's defined command as a fleet runs it: its own process group watched by the
 * runner's watchdog, the environment without the ledger's variables unless asked, a log file per run. Only where
 * its output goes differs between `catchup --all` and `scheduler`, so the caller says that.
 *
 * @example
 * const task = fleetCommandTask(setup, definition.command, (stream, run, raw) => deps.stderr(`${run.pipeline} | ${raw}\n`));
 */
export function fleetCommandTask(setup: FleetCommandSetup, command: PipelineCommand, onOutput: NonNullable<CommandTaskOptions['onOutput']>): CommandTask {
  const { ctx, logDir } = setup;
  const { env } = ctx.deps;
  return commandTask({
    argv: commandArgv(command),
    spawn,
    kill: (pid, signal) => process.kill(pid, signal),
    killGrace: setup.killGraceMs,
    reaper: setup.reaper,
    env: environmentOf(setup),
    ...(logDir === undefined ? {} : { logDir, secrets: knownSecrets(ctx.db, env) }),
    onLogError: (run, error) => ctx.note(`runledger: the log file of ${run.pipeline} ${run.date} could not be written (${error.message}); its outcome is recorded without one`),
    onOutput,
  });
}

/** The commands' environment of a fleet's setup, made once per setup (the commands only read it). */
const environments = new WeakMap<FleetCommandSetup, Readonly<Record<string, string | undefined>>>();
function environmentOf(setup: FleetCommandSetup): Readonly<Record<string, string | undefined>> {
  let env = environments.get(setup);
  if (env === undefined) {
    env = childEnvironment(setup.ctx.deps.env, setup.passLedgerEnv);
    environments.set(setup, env);
  }
  return env;
}
