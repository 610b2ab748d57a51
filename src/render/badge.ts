import { html, type Html } from './escape-html.js';

const KNOWN = new Set(['success', 'skipped', 'failed', 'up_for_retry', 'running', 'stalled', 'interrupted', 'cleared', 'missing', 'abandoned', 'not-due']);

/** A status as a coloured pill; an unknown status gets the neutral colour. */
export function badge(status: string): Html {
  const words = status === 'waitingForPrevious' ? 'waiting for previous' : status === 'up_for_retry' ? 'up for retry' : status;
  return html`<span class="badge b-${KNOWN.has(status) ? status : 'other'}">${words}</span>`;
}
