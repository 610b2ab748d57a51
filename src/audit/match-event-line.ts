/** An event line's parts: `prevHash`, `hash`, `signature` (null when unsigned) and the payload text. */
export type EventLineParts = { prevHash: string; hash: string; signature: string | null; payload: string };

const PREV_HASH_KEY = '{"prevHash":"';
const HASH_KEY = '","hash":"';
const SIGNATURE_KEY = '"signature":"';
const EVENT_KEY = '"event":';
const HASH_AT = PREV_HASH_KEY.length + 64 + HASH_KEY.length;
const AFTER_HASHES = HASH_AT + 64;

/**
 * What `EVENT_LINE.exec` finds in a line, by hand: `import` matches every
 * line of a file with it, and the regular expression (which also walks the
 * whole payload for its `.*`) took an eighth of the time a line is checked
 * in. It accepts exactly the lines `EVENT_LINE` does and cuts them the same
 * way (tests/audit/match-event-line.test.ts compares both).
 *
 * @example
 * matchEventLine(line)?.payload // the stored payload text, or undefined when not in the exported form
 */
export function matchEventLine(line: string): EventLineParts | null {
  if (!line.startsWith(PREV_HASH_KEY) || !isHex64(line, PREV_HASH_KEY.length) || !line.startsWith(HASH_KEY, PREV_HASH_KEY.length + 64)) return null;
  if (!isHex64(line, HASH_AT) || line.charCodeAt(AFTER_HASHES) !== QUOTE || line.charCodeAt(AFTER_HASHES + 1) !== COMMA) return null;
  let at = AFTER_HASHES + 2;
  let signature: string | null = null;
  if (line.startsWith(SIGNATURE_KEY, at)) {
    const from = at + SIGNATURE_KEY.length;
    let end = from;
    while (end < line.length && isSignatureChar(line.charCodeAt(end))) end++;
    // As `{1,200}` followed by `",`: a longer run has no `"` where the pattern needs one, whatever it backs off to.
    if (end === from || end - from > 200 || line.charCodeAt(end) !== QUOTE || line.charCodeAt(end + 1) !== COMMA) return null;
    signature = line.slice(from, end);
    at = end + 2;
  }
  // The signature's characters hold no `"`, so a line that has `"signature":"…` here never reads as unsigned.
  if (!line.startsWith(EVENT_KEY, at)) return null;
  at += EVENT_KEY.length;
  if (line.length - 1 < at || line.charCodeAt(line.length - 1) !== CLOSE_BRACE) return null;
  return { prevHash: line.slice(PREV_HASH_KEY.length, PREV_HASH_KEY.length + 64), hash: line.slice(HASH_AT, AFTER_HASHES), signature, payload: line.slice(at, -1) };
}

const QUOTE = 0x22;
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;

/** 64 lower-case hex digits from `at`: `[0-9a-f]{64}`. */
function isHex64(line: string, at: number): boolean {
  if (line.length < at + 64) return false;
  for (let i = at; i < at + 64; i++) {
    const c = line.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  return true;
}

/** `[A-Za-z0-9+/=:_-]` */
function isSignatureChar(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f || c === 0x3d || c === 0x3a || c === 0x5f || c === 0x2d;
}
