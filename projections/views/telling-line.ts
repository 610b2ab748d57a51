/**
 * The line of a multi-line text (an error with a stack, a command's stderr tail) that says most: the first line
 * that reads like an error (`Error: …`, `TypeError: …`, `ERROR: …`, `fatal: …`), else the last non-empty one that is
 * not a stack frame. A
 * first line naming how a command ended (`exited with code 1: …`) is kept in front of it.
 *
 * @example
 * tellingLine('exited with code 1: node:internal/modules/cjs/loader:1210\n  throw err;\nError: Cannot find module \'/x.js\'\n    at …')
 * // "exited with code 1: Error: Cannot find module '/x.js'"
 */
export function tellingLine(text: string): string {
  // One line (most errors; every row of `status` asks): the split, trims and filter below would give it trimmed.
  if (!text.includes('\n')) return text.trim();
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '');
  if (lines.length <= 1) return lines[0] ?? '';
  const ended = /^((?:exited with code \d+|killed by SIG[A-Z]+|ended by SIG[A-Z]+)[^:]*): (.*)$/.exec(lines[0] ?? '');
  const body = ended ? [ended[2] ?? '', ...lines.slice(1)].filter((l) => l !== '') : lines;
  // Stack frames (`at f (file:1:2)`) and caret lines say where, never what.
  const telling = body.find((l) => ERROR_LIKE.test(l)) ?? body.findLast((l) => !/^(?:at\s|\^+$)/.test(l)) ?? body.at(-1) ?? '';
  return ended ? `${ended[1]}: ${telling}` : telling;
}

/** `Error: …`, `TypeError: …`, `psycopg2.OperationalError: …`, `psql:load.sql:12: ERROR: …`, `fatal: …`, anywhere in the line. */
const ERROR_LIKE = /(?:^|[\s:])(?:[\w.$]*(?:Error|Exception)|error|ERROR|fatal|FATAL|panic):/;
