/**
 * Sizes every recorded text is held to, so one bad input cannot make every
 * later read of the ledger slow or crash it (a 50 MB metrics object made each
 * `state` cost 390 MB; metrics nested 5,000 deep overflowed the stack).
 */

/** The most bytes of canonical JSON a run's metrics may take, and the most bytes of a failure's error text. */
export const MAX_RECORDED_TEXT_BYTES = 64 * 1024;
/** The deepest nesting of objects and arrays metrics may have. */
export const MAX_JSON_DEPTH = 64;
/** The most tasks one pipeline may declare. */
export const MAX_TASKS = 1000;

/**
 * The nesting depth of a JSON value (a scalar is 0, `{}` is 1), walked with a
 * stack, not recursion, and stopping as soon as `limit` is passed.
 *
 * @example
 * jsonDepth({ a: [1] }, 64) // 2
 */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    const here = depth + 1;
    if (here > deepest) deepest = here;
    if (deepest > limit) return deepest;
    for (const child of Object.values(item)) stack.push([child, here]);
  }
  return deepest;
}

/** UTF-8 byte length of a string, without a Buffer (this module is pure). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** `64 KB` for 65536: limits as people write them. */
export function formatBytes(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`;
}
