/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, no
 * `undefined`. The same value always yields the same text, so the text can be
 * hashed and stored verbatim.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  // Every append writes one: the path of each value is only built to explain a value JSON cannot hold.
  const text = writeFast(value);
  return text ?? write(value, '$');
}

/** `write` without paths: undefined where `write` would throw, so it can say where. */
function writeFast(value: unknown): string | undefined {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
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
      let text = '{';
      for (const key of Object.keys(record).sort()) {
        const field = record[key];
        if (field === undefined) continue;
        const written = writeFast(field);
        if (written === undefined) return undefined;
        text += `${text.length === 1 ? '' : ','}${JSON.stringify(key)}:${written}`;
      }
      return `${text}}`;
    }
    default:
      return undefined;
  }
}

function write(value: unknown, path: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      // NaN and Infinity have no JSON form; silently writing null would change the data.
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: ${path} is ${value}, which JSON cannot hold`);
      return JSON.stringify(value);
    case 'object': {
      if (Array.isArray(value)) return `[${value.map((item, i) => write(item, `${path}[${i}]`)).join(',')}]`;
      const entries = Object.keys(value)
        .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${write((value as Record<string, unknown>)[key], `${path}.${key}`)}`);
      return `{${entries.join(',')}}`;
    }
    default:
      throw new TypeError(`canonicalJson: ${path} is a ${typeof value}, which JSON cannot hold`);
  }
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
