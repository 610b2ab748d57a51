import { inZone } from '../format/zoned-instant.js';
import { html, type Html } from './escape-html.js';

/**
 * An instant shown in the pipeline's zone, as a `<time>` element the page's
 * zone toggle can rewrite in the browser's own zone (the ISO instant stays in
 * `datetime`).
 *
 * @example
 * timeHtml('2026-11-04T18:00:00.000Z', 'Asia/Jakarta').html // '<time datetime="2026-11-04T18:00:00.000Z" data-zone="Asia/Jakarta">2026-11-05T01:00:00+07:00</time>'
 */
export function timeHtml(iso: string, timeZone: string): Html {
  return html`<time datetime="${iso}" data-zone="${timeZone}">${inZone(iso, timeZone)}</time>`;
}
