import { LedgerError } from '../errors.js';

/** The default and the largest `limit` of one paged listing. */
export type PageCap = { default: number; max: number };

/** `GET /api/pipelines/:p/state`: rows (dates) per page. */
export const STATE_PAGE: PageCap = { default: 1000, max: 10_000 };
/** `GET /api/pipelines/:p/runs`: runs per page. */
export const RUNS_PAGE: PageCap = { default: 100, max: 1000 };
/** `GET /api/audit`: entries per page (default 500, as the `/audit` page lists). */
export const AUDIT_PAGE: PageCap = { default: 500, max: 1000 };
/**
 * The pipeline page's calendar: rows per page, months of days (default 120) or days of hours (default 31;
 * the defaults come with the layout), at most 240 either way.
 */
export const CALENDAR_ROWS: PageCap = { default: 120, max: 240 };

/**
 * `?limit=` of a paged listing: its default when absent, refused over the
 * cap before any work is done (`input.limitTooLarge`, HTTP 400).
 *
 * @example
 * limitOf(queryOf('/api/pipelines/p/state?limit=20000'), STATE_PAGE) // throws: limit must be at most 10000
 */
export function limitOf(query: Map<string, string>, cap: PageCap, name = 'limit'): number {
  const text = query.get(name);
  if (text === undefined || text === '') return cap.default;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new LedgerError('input.invalidNumber', `${name} must be a whole number from 1 to ${cap.max}, not '${text.slice(0, 40)}'`);
  if (Number(text) > cap.max) throw new LedgerError('input.limitTooLarge', `${name} must be at most ${cap.max}, not ${text}; read the rest page by page with the answer's next link`);
  return Number(text);
}

/**
 * The address of the next page: the request's own path and query with the
 * cursor set (a `token` in the query is left out: links must not carry it).
 *
 * @example
 * nextHref('/api/pipelines/p/state?limit=2', { from: '2026-11-04' }) // '/api/pipelines/p/state?limit=2&from=2026-11-04'
 */
export function nextHref(url: string, changes: Record<string, string | null>): string {
  const parsed = new URL(url, 'http://localhost');
  parsed.searchParams.delete('token');
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) parsed.searchParams.delete(name);
    else parsed.searchParams.set(name, value);
  }
  const search = parsed.searchParams.toString();
  return `${parsed.pathname}${search ? `?${search}` : ''}`;
}
