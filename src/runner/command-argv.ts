import type { PipelineCommand } from '../../events/pipeline-definition.js';

/**
 * The argv a stored command (`define --command`) runs: its words, or `sh -c` with them joined when it
 * was stored with `--shell`.
 *
 * @example
 * commandArgv({ argv: ['python', 'load.py', '{date}'] }) // ['python', 'load.py', '{date}']
 */
export function commandArgv(command: PipelineCommand): string[] {
  return command.shell ? ['sh', '-c', command.argv.join(' ')] : [...command.argv];
}
