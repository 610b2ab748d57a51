/**
 * Canonical JSON: object keys sorted by code unit, no whitespace, no
 * `undefined`. The same value always yields the same text, so the text can be
 * hashed and stored verbatim (S14).
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return write(value, '$');
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
