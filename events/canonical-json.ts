/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, no
 * `undefined`. The same value always yields the same text, so the text can be
 * hashed and stored verbatim.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return write(value, '$');
}

/** The canonical text of `value`, found at `path`; throws naming the first value JSON cannot hold. */
function write(value: unknown, path: string): string {
  // Every append writes one: paths are only built to explain a value JSON cannot hold.
  return writeFast(value) ?? refuse(value, path);
}

/** The canonical text without paths: undefined where a value JSON cannot hold sits, so `refuse` can say where. */
function writeFast(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : undefined;
    case 'object': {
      if (Array.isArray(value)) {
        let text = '[';
        for (let i = 0; i < value.length; i++) {
          const item = writeFast(value[i]);
          if (item === undefined) return undefined;
          text += i === 0 ? item : `,${item}`;
        }
        return `${text}]`;
      }
      const record = value as Record<string, unknown>;
      const keys = sortedKeys(record);
      let text = '{';
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        const field = record[key];
        if (field === undefined) continue;
        const written = writeFast(field);
        if (written === undefined) return undefined;
        text += `${text.length === 1 ? '' : ','}${quoted(key)}:${written}`;
      }
      return `${text}}`;
    }
    default:
      return undefined;
  }
}

/** Code units `JSON.stringify` writes as an escape: quote, backslash, controls, and surrogates (lone ones are escaped; paired ones are left to it too). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text)`, without calling it for the common text that has nothing to escape: then it is the text in quotes. */
function quoted(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/**
 * `Object.keys(record).sort()`: the same order (code units; keys are unique), by insertion for the few
 * keys an event's objects have, which is cheaper than the general sort; by that sort above a handful.
 */
function sortedKeys(record: Record<string, unknown>): string[] {
  const keys = Object.keys(record);
  if (keys.length > 12) return keys.sort();
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    for (; j >= 0 && (keys[j] as string) > key; j--) keys[j + 1] = keys[j] as string;
    keys[j + 1] = key;
  }
  return keys;
}

/** Throws naming the first value JSON cannot hold, met in the order `writeFast` meets them. */
function refuse(value: unknown, path: string): never {
  throw new TypeError(`canonicalJson: ${unwritable(value, path) ?? `${path} cannot be written`}, which JSON cannot hold`);
}

/** Where the first value JSON cannot hold sits and what it is (`$.a[1].b is NaN`), or undefined when there is none. */
function unwritable(value: unknown, path: string): string | undefined {
  // NaN and Infinity have no JSON form; silently writing null would change the data.
  if (typeof value === 'number') return Number.isFinite(value) ? undefined : `${path} is ${value}`;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value !== 'object') return `${path} is a ${typeof value}`;
  // Items in index order (holes included), fields in key order: the first one `writeFast` gave up at.
  const record = value as Record<string, unknown>;
  const inside = Array.isArray(value)
    ? Array.from(value, (item: unknown, i) => [item, `${path}[${i}]`] as const)
    : Object.keys(record).sort().filter((key) => record[key] !== undefined).map((key) => [record[key], `${path}.${key}`] as const);
  for (const [item, at] of inside) {
    const found = unwritable(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * `canonicalJson` of an object whose top-level `holes` are left open: the
 * text around them, in key order, so `pieces[0] + canonicalJson(v0) +
 * pieces[1] + canonicalJson(v1) + …` is exactly `canonicalJson` of the object
 * with the holes filled (keys sorted the same way). Lets a database fill in
 * values it alone knows (position, stream version) and hash the result.
 *
 * @example
 * canonicalJsonWithHoles({ b: 1 }, ['a', 'c']) // ['{"a":', ',"b":1,"c":', '}']
 */
export function canonicalJsonWithHoles(value: Record<string, unknown>, holes: readonly string[]): string[] {
  const keys = [...new Set([...Object.keys(value).filter((key) => value[key] !== undefined && !holes.includes(key)), ...holes])].sort();
  const pieces: string[] = [];
  let text = '{';
  keys.forEach((key, i) => {
    text += `${i > 0 ? ',' : ''}${JSON.stringify(key)}:`;
    if (holes.includes(key)) {
      pieces.push(text);
      text = '';
    } else {
      text += write(value[key], `$.${key}`);
    }
  });
  pieces.push(`${text}}`);
  // Filling holes in the caller's order must be filling them in key order.
  const order = keys.filter((key) => holes.includes(key));
  if (order.some((key, i) => key !== holes[i])) throw new TypeError(`canonicalJsonWithHoles: holes ${holes.join(', ')} are not in key order`);
  return pieces;
}
