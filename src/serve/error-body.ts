/** The largest error body the server sends; a longer one keeps its `error` and the first items of each list. */
export const ERROR_BODY_MAX_BYTES = 16 * 1024;

/** Items of each list an error body keeps when it is cut. */
const KEEP_ITEMS = 20;

/**
 * Caps an error body: a refused batch of 20,000 lineage events must not
 * answer with a megabyte. The `error` object stays (its message cut to 1,000
 * characters); each list in the body or in `error` is cut to its first 20
 * items, with `<name>Omitted` saying how many were left out; a body still too
 * long keeps only the code and message.
 *
 * @example
 * capErrorBody(JSON.stringify({ error: { code: 'x', message: 'm' }, invalid: hugeList }))
 */
export function capErrorBody(payload: string): string {
  if (Buffer.byteLength(payload) <= ERROR_BODY_MAX_BYTES) return payload;
  let body: unknown;
  try {
    body = JSON.parse(payload);
  } catch {
    return JSON.stringify({ error: { code: 'unexpected', message: 'the error was too long to send; see the server log' } });
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return JSON.stringify({ error: { code: 'unexpected', message: 'the error was too long to send' } });
  const out = cutLists(body as Record<string, unknown>);
  const error = out['error'];
  if (error !== null && typeof error === 'object' && !Array.isArray(error)) {
    const fields = cutLists(error as Record<string, unknown>);
    if (typeof fields['message'] === 'string' && fields['message'].length > 1000) fields['message'] = `${fields['message'].slice(0, 1000)}…`;
    out['error'] = fields;
  }
  const capped = JSON.stringify(out);
  if (Buffer.byteLength(capped) <= ERROR_BODY_MAX_BYTES) return capped;
  const { code, message } = (out['error'] ?? {}) as { code?: unknown; message?: unknown };
  return JSON.stringify({ error: { code: code ?? 'unexpected', message: message ?? 'the error was too long to send' } });
}

/** Each list of an object cut to its first items, with `<name>Omitted` counting the rest. */
function cutLists(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (Array.isArray(value) && value.length > KEEP_ITEMS) {
      out[key] = value.slice(0, KEEP_ITEMS);
      out[`${key}Omitted`] = value.length - KEEP_ITEMS;
    } else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * A ledger message as HTTP callers act on it: the CLI's flags become the body
 * fields or query parameters of the same name, and the library hints go.
 *
 * @example
 * httpWording('… already succeeded (run 01J…); pass --force (library: force: true) to reprocess it')
 * // '… already succeeded (run 01J…); send "force": true in the body to reprocess it'
 */
export function httpWording(message: string, method: string): string {
  const body = method !== 'GET' && method !== 'HEAD';
  let text = message.replace(/ \(library: [^)]*\)/g, '');
  if (body) {
    text = text
      .replace(/\bpass --force\b/g, 'send "force": true in the body')
      .replace(/\b(use|add) --type manual\b/g, 'send "type": "manual" in the body')
      .replace(/--error "([^"]*)"/g, '"error": "$1" in the body');
  } else {
    text = text.replace(/--from\/--to/g, '?from=…&to=…').replace(/--from and --to/g, '?from=…&to=…').replace(/--as-of\b/g, '?as_of=');
  }
  return text;
}
