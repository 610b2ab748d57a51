const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * The one escaper of every page: every string that comes from the ledger
 * (pipeline names, errors, metrics, reasons, actors) goes through it, in text
 * and in attribute values alike.
 *
 * @example
 * escapeHtml('<img src=x onerror=alert(1)>') // '&lt;img src=x onerror=alert(1)&gt;'
 */
export function escapeHtml(value: unknown): string {
  const text = String(value ?? '');
  // Most values hold nothing to escape: tested first, they are handed back as they are, with no replace pass.
  return SPECIAL.test(text) ? text.replace(SPECIALS, (c) => ENTITIES[c] ?? c) : text;
}

const SPECIAL = /[&<>"']/;
const SPECIALS = /[&<>"']/g;

/** HTML that is already safe: built by the renderer from escaped parts. */
export type Html = { readonly html: string };

/**
 * A tagged template that escapes every interpolated value unless it is `Html`
 * (or an array of them), so a page cannot forget to escape.
 *
 * @example
 * html`<td>${run.error}</td>`.html
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += toHtml(values[i]) + (strings[i + 1] ?? '');
  return { html: out };
}

function toHtml(value: unknown): string {
  if (Array.isArray(value)) return value.map(toHtml).join('');
  if (value !== null && typeof value === 'object' && 'html' in value && typeof (value as Html).html === 'string') return (value as Html).html;
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(value);
}

/** Joins safe fragments. */
export function join(parts: Html[], separator = ''): Html {
  return { html: parts.map((p) => p.html).join(separator) };
}
