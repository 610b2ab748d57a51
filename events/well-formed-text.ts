/**
 * Text that UTF-8 can hold. A JavaScript string may carry a lone UTF-16 surrogate (`"\ud800"` in JSON),
 * which no UTF-8 text can: a database column stores a replacement character instead, so the read models
 * and a fold of the events would disagree for good. runledger refuses such text where it comes in.
 */

/** A lone surrogate: a high one not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** ES2024's String methods, which every Node runledger supports (20.19+) has; the project's lib is ES2023. */
type Es2024String = { isWellFormed(): boolean; toWellFormed(): string };

/**
 * `text` with each lone surrogate replaced by U+FFFD, as a UTF-8 encoder writes it (`String#toWellFormed`):
 * for text nobody can be asked to resend (a thrown error's message, a command's output).
 *
 * @example
 * wellFormed('a\ud800') // 'a\ufffd'
 */
export function wellFormed(text: string): string {
  return (text as unknown as Es2024String).toWellFormed();
}

/** Where a lone surrogate sits: the field's path (`metrics.note`, `outputs[2]`) and the UTF-16 index in its text. */
export type IllFormedText = { path: string; index: number };

/**
 * The index of the first lone surrogate of `text`, or -1 when it is well-formed.
 *
 * @example
 * loneSurrogateIndex('a\ud800b') // 1
 */
export function loneSurrogateIndex(text: string): number {
  // The engine's own check first: only ill-formed text runs the look-around pattern that finds the index.
  if ((text as unknown as Es2024String).isWellFormed()) return -1;
  const found = LONE_SURROGATE.exec(text);
  return found === null ? -1 : found.index;
}

/**
 * The first string of `value` (object keys included) holding a lone surrogate, with its path below `path`,
 * or null when every string is well-formed. Walked with a stack, so depth costs no recursion.
 *
 * @example
 * illFormedTextAt({ error: 'x\udc00' }, '') // { path: 'error', index: 1 }
 */
export function illFormedTextAt(value: unknown, path: string): IllFormedText | null {
  const stack: Array<[unknown, string]> = [[value, path]];
  while (stack.length > 0) {
    const [item, at] = stack.pop() as [unknown, string];
    if (typeof item === 'string') {
      const index = loneSurrogateIndex(item);
      if (index >= 0) return { path: at === '' ? '(value)' : at, index };
      continue;
    }
    // Plain data only (JSON values, options objects): a class instance (a signal, a stream) is not text the ledger keeps.
    if (typeof item !== 'object' || item === null || !(Array.isArray(item) || isPlainObject(item))) continue;
    const entries: Array<[unknown, string]> = [];
    if (Array.isArray(item)) item.forEach((child: unknown, i) => entries.push([child, `${at}[${i}]`]));
    else {
      for (const [key, child] of Object.entries(item)) {
        const keyIndex = loneSurrogateIndex(key);
        const childPath = at === '' ? key : `${at}.${key}`;
        if (keyIndex >= 0) return { path: `${at === '' ? '' : `${at}.`}(key ${JSON.stringify(key)})`, index: keyIndex };
        entries.push([child, childPath]);
      }
    }
    // Reversed onto the stack, so the first field in order is reported first.
    for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i] as [unknown, string]);
  }
  return null;
}

/** C0 controls (NUL, ESC, …), DEL and C1 controls: what a name or a short code never holds. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The index of the first control character of `text`, or -1. A short token (an error code, an actor's
 * name) holds none: a database column cannot hold NUL, and every table and terminal would print the rest.
 *
 * @example
 * controlIndex('E\u0000') // 1
 */
export function controlIndex(text: string): number {
  const found = CONTROL.exec(text);
  return found === null ? -1 : found.index;
}

function isPlainObject(item: object): boolean {
  const proto: unknown = Object.getPrototypeOf(item);
  return proto === Object.prototype || proto === null;
}

/**
 * The one-line refusal of a text holding a lone surrogate, naming its field: said the same way by the CLI,
 * the HTTP API, OpenLineage ingest and the library.
 *
 * @example
 * illFormedTextMessage({ path: 'error', index: 5 }) // 'error holds a lone UTF-16 surrogate at character 5, …'
 */
export function illFormedTextMessage(found: IllFormedText): string {
  return `${found.path} holds a lone UTF-16 surrogate at character ${found.index}, which is not Unicode text and cannot be stored; send well-formed text (a surrogate pair, or the character itself)`;
}
