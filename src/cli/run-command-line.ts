import type { CliDeps } from './cli-context.js';
import { runCli } from './create-program.js';

/**
 * Runs one `runledger` command line with every command available, the extra command groups loaded only when the
 * line names them (a query never pays for the runner, audit or demo code). `main.ts` calls it with the process;
 * the tests call it in-process with collected output.
 *
 * @example
 * const code = await runCommandLine(['status', '--json'], { stdout: (t) => out.push(t), stderr: console.error, env: {}, clock: Date.now, isTTY: false });
 */
export function runCommandLine(argv: string[], deps: CliDeps): Promise<number> {
  return runCli(argv, deps, async (word) => (await import('./extra-command-loaders.js')).extraCommandsFor(word));
}
