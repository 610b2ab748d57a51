/**
 * Text from the ledger as a terminal may show it. Writers' texts (an error, a failure code, a reason, an
 * OpenLineage `errorMessage`, a command's stderr tail) are data, never instructions to the terminal: printed
 * raw, `\x1b]0;…\x07` retitles the window, `\x1b[2J` clears the screen, an OSC 8 sequence plants a link
 * whose text hides its target, a carriage return or a backspace overwrites what came before, and a bidi
 * override shows text in another order than it is stored (CWE-150). Every human output of the CLI goes
 * through `terminalText`: each such character becomes its visible escape, before any width is measured or
 * any cell cut, so a cut never splits a sequence. JSON output is left as JSON (it escapes its own controls).
 */

/**
 * C0 controls (NUL … US, tab and line breaks included), DEL, C1 controls (CSI U+009B among them), and the bidi
 * embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
 */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_ONE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
/** The same, but keeping the line feed: for blocks of lines, where it is the layout. */
const UNSAFE_KEEPING_LINES = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const UNSAFE_KEEPING_LINES_ONE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\b': '\\b' };

/** One unsafe character as it is written in source code: `\r`, `\x1b`, `\x9b`, `\u202e`. */
function visible(c: string): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  const code = c.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Whether `terminalText` would change `text` (line feeds included): most text has nothing to escape, and one test
 * says so without building anything.
 *
 * @example
 * hasTerminalControls('etl_orders') // false
 */
export function hasTerminalControls(text: string): boolean {
  // "Not all of it safe" rather than "any of it unsafe": one anchored pass over the text, where a search tries every
  // position in turn (a table of 1,000 lines is tested whole: a third fewer instructions).
  return !ALL_SAFE.test(text);
}
const ALL_SAFE = /^[^\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]*$/;

/**
 * `text` with every control character (and bidi control) written as its visible escape; with `keepLines`,
 * line feeds stay line feeds (a multi-line message printed as lines). Text without any is returned as it is.
 *
 * @example
 * terminalText('boom \x1b]0;pwned\x07') // 'boom \\x1b]0;pwned\\x07'
 * terminalText('a\nb', { keepLines: true }) // 'a\nb'
 */
export function terminalText(text: string, options: { keepLines?: boolean } = {}): string {
  if (options.keepLines) return UNSAFE_KEEPING_LINES_ONE.test(text) ? text.replace(UNSAFE_KEEPING_LINES, visible) : text;
  return UNSAFE_ONE.test(text) ? text.replace(UNSAFE, visible) : text;
}
