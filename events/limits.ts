/**
 * Sizes every recorded text is held to, so one bad input cannot make every
 * later read of the ledger slow or crash it (a 50 MB metrics object made each
 * `state` cost 390 MB; metrics nested 5,000 deep overflowed the stack).
 */

/**
 * The most bytes of canonical JSON a run's metrics may take, and the most
 * bytes of a failure's error text, unless the pipeline's definition sets its
 * own (`define --max-metrics-bytes` / `--max-error-bytes`).
 */
export const MAX_RECORDED_TEXT_BYTES = 64 * 1024;
/** The smallest and the largest cap a pipeline may set on its metrics or error text. */
export const MIN_SIZE_CAP_BYTES = 1024;
export const MAX_SIZE_CAP_BYTES = 16 * 1024 * 1024;

/** The caps a pipeline's runs are held to. */
export type RecordedTextLimits = { metricsBytes: number; errorBytes: number };

/**
 * The caps of a pipeline: its definition's own, else the 64 KB default (a
 * definition recorded before caps existed has none).
 *
 * @example
 * recordedTextLimits({ maxErrorBytes: 4096 }) // { metricsBytes: 65536, errorBytes: 4096 }
 */
export function recordedTextLimits(definition: { maxMetricsBytes?: number | undefined; maxErrorBytes?: number | undefined } | null | undefined): RecordedTextLimits {
  return { metricsBytes: definition?.maxMetricsBytes ?? MAX_RECORDED_TEXT_BYTES, errorBytes: definition?.maxErrorBytes ?? MAX_RECORDED_TEXT_BYTES };
}
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

/** `64 KB` for 65536, `16 MB` for 16777216: limits as people write them. */
export function formatBytes(bytes: number): string {
  if (bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MB`;
  return bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`;
}

/**
 * A text cut to at most `maxBytes` of UTF-8 when it is longer: its start and
 * its end (where a stderr tail or a stack trace says what went wrong) around
 * a marker saying how much was cut. For texts the writer cannot shorten (a
 * command's stderr, an OpenLineage producer's error message).
 *
 * @example
 * fitText('x'.repeat(5000), 1024).length <= 1024 // true
 */
export function fitText(text: string, maxBytes: number): string {
  const bytes = utf8Bytes(text);
  if (bytes <= maxBytes) return text;
  const marker = ` [… ${(bytes - maxBytes).toLocaleString('en')}+ bytes cut to fit the ${formatBytes(maxBytes)} limit …] `;
  const room = maxBytes - utf8Bytes(marker);
  if (room < 16) return prefixWithin(text, maxBytes);
  const head = prefixWithin(text, Math.floor(room / 4));
  const tail = suffixWithin(text, room - utf8Bytes(head));
  return `${head}${marker}${tail}`;
}

/** The longest start of `text` within `maxBytes`, never splitting a surrogate pair. */
function prefixWithin(text: string, maxBytes: number): string {
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const pair = isHighSurrogate(text.charCodeAt(end)) && end + 1 < text.length;
    const size = pair ? 4 : charBytes(text.charCodeAt(end));
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += pair ? 2 : 1;
  }
  return text.slice(0, end);
}

/** The longest end of `text` within `maxBytes`, never splitting a surrogate pair. */
function suffixWithin(text: string, maxBytes: number): string {
  let bytes = 0;
  let start = text.length;
  while (start > 0) {
    const pair = isLowSurrogate(text.charCodeAt(start - 1)) && start - 2 >= 0 && isHighSurrogate(text.charCodeAt(start - 2));
    const size = pair ? 4 : charBytes(text.charCodeAt(start - 1));
    if (bytes + size > maxBytes) break;
    bytes += size;
    start -= pair ? 2 : 1;
  }
  return text.slice(start);
}

/** UTF-8 bytes of one UTF-16 unit outside a surrogate pair (a lone surrogate is written as 3). */
const charBytes = (c: number) => (c < 0x80 ? 1 : c < 0x800 ? 2 : 3);
const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff;
