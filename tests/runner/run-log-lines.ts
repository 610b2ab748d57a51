import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A command that logs its own start and end to runs.log (nanoseconds, from the shell), with a pause of `pause`
 * seconds between so runs overlap.
 *
 * @example
 * cli(dir, ['define', 'p', …, '--command', '--', ...loggedCommand(0.2)])
 */
export function loggedCommand(pause: number): string[] {
  return ['sh', '-c', `echo "start $(date +%s%N) $RUNLEDGER_PIPELINE $RUNLEDGER_DATE" >> runs.log; sleep ${pause}; echo "end $(date +%s%N) $RUNLEDGER_PIPELINE $RUNLEDGER_DATE" >> runs.log`];
}

export type Line = { what: 'start' | 'end'; at: bigint; run: string };

/** The lines `loggedCommand` wrote in `dir`, in file order. */
export function logLines(dir: string): Line[] {
  return readFileSync(join(dir, 'runs.log'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const [what, at, pipeline, date] = line.split(' ');
      return { what: what as 'start' | 'end', at: BigInt(at as string), run: `${pipeline} ${date}` };
    });
}

/** The most runs the log shows at once: a sweep over every start and end, an end first at the same instant. */
export function mostAtOnce(lines: Line[]): number {
  const sorted = [...lines].sort((a, b) => (a.at === b.at ? (a.what === 'end' ? -1 : 1) : a.at < b.at ? -1 : 1));
  let now = 0;
  let most = 0;
  for (const line of sorted) {
    now += line.what === 'start' ? 1 : -1;
    most = Math.max(most, now);
  }
  return most;
}
