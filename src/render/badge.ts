import { html, type Html } from './escape-html.js';

const KNOWN = new Set(['success', 'failed', 'running', 'stalled', 'interrupted', 'cleared', 'missing', 'abandoned', 'not-due']);

/** A status as a coloured pill; an unknown status gets the neutral colour. */
export function badge(status: string): Html {
  return html`<span class="badge b-${KNOWN.has(status) ? status : 'other'}">${status}</span>`;
}
