import { LedgerError } from '../errors.js';

/**
 * The query parameters each route of `serve` reads, by `METHOD path`; `token` (the read token of a page's first
 * visit) is taken by every route. Any other parameter is refused (400 `input.invalidQuery`, naming it and these): a
 * misspelt `?as_off=` answered as if absent shows the present as the past, and a parameter no page reads would make
 * each address a page built and kept of its own.
 */
export const QUERY_PARAMETERS: Readonly<Record<string, readonly string[]>> = {
  'GET /': ['as_of', 'status', 'q'],
  'GET /pipelines/:pipeline': ['as_of', 'from', 'to', 'until', 'limit', 'runs_before'],
  'GET /pipelines/:pipeline/runs/:runId': ['as_of'],
  'GET /pipelines/:pipeline/dates/:date': ['as_of'],
  'GET /audit': ['as_of', 'before'],
  'GET /verify': [],
  'GET /graph': [],
  'GET /assets/app.css': [],
  'GET /assets/app.js': [],
  'GET /api/health': [],
  'GET /api/status': ['pipeline'],
  'GET /api/check': ['pipeline', 'maxLag', 'maxPending', 'noFailed', 'noStalled', 'includePaused'],
  'GET /metrics': [],
  'GET /api/graph': [],
  'GET /api/stream': ['pipeline', 'after'],
  'GET /api/pipelines': [],
  'GET /api/pipelines/:pipeline/state': ['from', 'to', 'limit', 'as_of'],
  'GET /api/pipelines/:pipeline/pending': ['from', 'to', 'as_of'],
  'GET /api/pipelines/:pipeline/watermark': ['as_of'],
  'GET /api/pipelines/:pipeline/runs': ['date', 'limit', 'before', 'as_of'],
  'GET /api/pipelines/:pipeline/runs/:runId': ['as_of'],
  'GET /api/log': ['pipeline', 'date', 'run', 'type', 'actor', 'since', 'until', 'limit', 'as_of'],
  'GET /api/audit': ['before', 'limit', 'as_of'],
  'GET /api/verify': ['expect_head'],
  'POST /api/pipelines/:pipeline/runs': [],
  'POST /api/runs/:runId/succeed': [],
  'POST /api/runs/:runId/fail': [],
  'POST /api/runs/:runId/heartbeat': [],
  'POST /api/pipelines/:pipeline/clear': [],
  'POST /api/pipelines/:pipeline/pause': [],
  'POST /api/pipelines/:pipeline/unpause': [],
  'POST /api/pipelines/:pipeline/retire': [],
  'POST /api/pipelines/:pipeline/unretire': [],
  'POST /api/v1/lineage': [],
};

/**
 * Refuses a query parameter the route does not read, naming the first few such and the ones it takes. A route missing
 * from `QUERY_PARAMETERS` (none: a test holds every route to it) and an address of no route (a 404) are let through.
 *
 * @example
 * checkQueryParameters('GET', '/pipelines/:pipeline', ['as_off']) // throws: unknown query parameter 'as_off' …
 */
export function checkQueryParameters(method: string, route: string, names: Iterable<string>): void {
  const accepted = QUERY_PARAMETERS[`${method === 'HEAD' ? 'GET' : method} ${route}`];
  if (accepted === undefined) return;
  const unknown = [...new Set(names)].filter((name) => name !== 'token' && !accepted.includes(name));
  if (unknown.length === 0) return;
  const named = unknown.slice(0, 3).map((name) => `'${name.slice(0, 40).replace(/[^\x20-\x7e]/g, '?')}'`);
  const more = unknown.length > 3 ? ` and ${unknown.length - 3} more` : '';
  const takes = accepted.length === 0 ? 'takes none (but token)' : `takes ${accepted.join(', ')} (and token)`;
  throw new LedgerError('input.invalidQuery', `unknown query parameter${unknown.length > 1 ? 's' : ''} ${named.join(', ')}${more} for ${method} ${route}; it ${takes}: leave ${unknown.length > 1 ? 'them' : 'it'} out or fix the name`);
}
