import { html } from './escape-html.js';

/**
 * The page a browser gets instead of the JSON error body: the same message
 * and code, escaped, with a way back to the overview. It loads only the
 * server's own stylesheet, so the strict CSP holds.
 *
 * @example
 * errorPage(404, 'notFound.pipeline', "no pipeline 'nope' in this ledger; …")
 */
export function errorPage(status: number, code: string, message: string): string {
  const body = html`<h1>${status === 404 ? 'Not found' : status >= 500 ? 'Something went wrong' : 'This request cannot be answered'}</h1>
<p class="err" data-error-code="${code}">${message}</p>
<p class="muted">HTTP ${String(status)} · <code>${code}</code></p>
<p><a href="/">Back to the overview</a></p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><link rel="icon" href="data:,"><title>${html`runledger: ${message}`.html}</title><link rel="stylesheet" href="/assets/app.css"></head>
<body><header><span class="brand">runledger</span><a href="/">Overview</a><a href="/audit">Audit</a><a href="/verify">Verify</a></header><main id="main">${body.html}</main></body></html>
`;
}
