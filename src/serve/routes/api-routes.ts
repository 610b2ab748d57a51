import type { FastifyInstance } from 'fastify';
import { parseHead } from '../../audit/verify-chain.js';
import { verifyLedger } from '../../audit/verify-ledger.js';
import { logDocument } from '../../ops/log-document.js';
import { LedgerError } from '../../errors.js';
import { nextHref, limitOf, AUDIT_PAGE, RUNS_PAGE, STATE_PAGE } from '../page-params.js';
import { asOfOf, pick, queryOf, wholeOf } from '../parse-query.js';
import { loadAuditPage } from '../../views/load-pages.js';
import type { ServeDeps } from '../serve-options.js';
import { answerCache } from '../answer-cache.js';
import { logInput } from '../../ledger/log-input.js';

type PipelineParams = { pipeline: string };

/** Watermark answers kept, one per pipeline asked for last. */
const WATERMARKS_KEPT = 1024;

/**
 * The read API: each route answers with exactly the document the CLI prints
 * with `--json` for the same question, and fails with the same code and
 * message (as the HTTP status of the CLI's exit code).
 *
 * - `GET /api/pipelines` = `runledger pipelines --json`
 * - `GET /api/pipelines/:p/state?from&to&limit&as_of` = `runledger state p --json`, a page of `limit` dates
 *   (default 1,000, at most 10,000) with `next`: the address of the next page, or null
 * - `GET /api/pipelines/:p/pending?from&to&as_of` = `runledger pending p --json`
 * - `GET /api/pipelines/:p/runs?date&limit&before&as_of` = `runledger runs p --json`, the most recent `limit`
 *   runs (default 100, at most 1,000) started before the run `before`, oldest first, with `next`: the page of
 *   the runs before them
 * - `GET /api/pipelines/:p/runs/:runId?as_of` = `runledger runs p --run <id> --json`
 * - `GET /api/pipelines/:p/watermark?as_of` = `runledger watermark p --json`
 * - `GET /api/log?pipeline&date&run&type&actor&since&until&limit&as_of` = `runledger log --json`
 * - `GET /api/audit?before&limit&as_of` = the `/audit` page as JSON: its `entries` (newest first, `limit` at most,
 *   default 500), `total` (every entry of the ledger, from the counts the read models keep per pipeline; null for a
 *   page of the past) and `next`: the address of the older entries, or null
 * - `GET /api/verify?expect_head` = `runledger verify --json` (HTTP 500 when the chain is broken, as exit 5)
 */
export function apiRoutes(app: FastifyInstance, deps: ServeDeps): void {
  const { ledger } = deps;
  const range = (url: string, pipeline: string) => {
    const query = queryOf(url);
    const asOf = asOfOf(query);
    return { pipeline, ...pick(query, ['from', 'to'] as const), ...(asOf ? { asOf } : {}) };
  };

  // The list changes only with the events: built once per head position, however many clients ask.
  // Kept as bytes: a hit sends them as they are, with no length to count or text to encode.
  const pipelinesAnswer = answerCache<Buffer>();
  app.get('/api/pipelines', async (_request, reply) => {
    const text = await pipelinesAnswer.get(String((await ledger.store.head()).position), async () => Buffer.from(JSON.stringify({ pipelines: await ledger.pipelines() })));
    return reply.type('application/json; charset=utf-8').send(text);
  });

  app.get<{ Params: PipelineParams }>('/api/pipelines/:pipeline/state', async (request) => {
    // The cap is checked before anything is read.
    const limit = limitOf(queryOf(request.url), STATE_PAGE);
    const { nextFrom, ...view } = await ledger.state({ ...range(request.url, request.params.pipeline), limit });
    return { ...view, next: nextFrom ? nextHref(request.url, { from: nextFrom }) : null };
  });

  app.get<{ Params: PipelineParams }>('/api/pipelines/:pipeline/pending', async (request) => ledger.pending(range(request.url, request.params.pipeline)));

  // A pipeline's watermark changes only with the events: kept as bytes per pipeline and head position (the pipelines
  // asked for last, a bounded number), so a scraper polling it costs a head read. `as_of` is history, read each time.
  const watermarks = new Map<string, { position: number; body: Buffer }>();
  app.get<{ Params: PipelineParams }>('/api/pipelines/:pipeline/watermark', async (request, reply) => {
    const asOf = asOfOf(queryOf(request.url));
    const pipeline = request.params.pipeline;
    if (asOf) return ledger.watermark({ pipeline, asOf });
    const position = (await ledger.store.head()).position;
    let kept = watermarks.get(pipeline);
    if (kept?.position !== position) {
      kept = { position, body: Buffer.from(JSON.stringify(await ledger.watermark({ pipeline }))) };
      watermarks.delete(pipeline);
      watermarks.set(pipeline, kept);
      if (watermarks.size > WATERMARKS_KEPT) watermarks.delete(watermarks.keys().next().value as string);
    }
    return reply.type('application/json; charset=utf-8').send(kept.body);
  });

  app.get<{ Params: PipelineParams }>('/api/pipelines/:pipeline/runs', async (request) => {
    const query = queryOf(request.url);
    const limit = limitOf(query, RUNS_PAGE);
    const asOf = asOfOf(query);
    // One run more than the page tells whether older runs are left.
    const view = await ledger.runs({ pipeline: request.params.pipeline, ...pick(query, ['date', 'before'] as const), limit: limit + 1, ...(asOf ? { asOf } : {}) });
    const more = view.runs.length > limit;
    const runs = more ? view.runs.slice(1) : view.runs;
    return { ...view, runs, next: more && runs[0] ? nextHref(request.url, { before: runs[0].runId }) : null };
  });

  app.get<{ Params: PipelineParams & { runId: string } }>('/api/pipelines/:pipeline/runs/:runId', async (request) => {
    const asOf = asOfOf(queryOf(request.url));
    return ledger.runTasks({ pipeline: request.params.pipeline, runId: request.params.runId, ...(asOf ? { asOf } : {}) });
  });

  app.get('/api/log', async (request) => {
    const query = queryOf(request.url);
    const { pipeline, run, as_of: asOf, ...rest } = pick(query, ['pipeline', 'date', 'run', 'type', 'actor', 'since', 'until', 'limit', 'as_of'] as const);
    const input = logInput(pipeline, { ...rest, ...(run === undefined ? {} : { run }), ...(asOf === undefined ? {} : { asOf }) });
    return logDocument((await ledger.log(input)).events);
  });

  app.get('/api/audit', async (request) => {
    const query = queryOf(request.url);
    const limit = limitOf(query, AUDIT_PAGE);
    const before = wholeOf(query, 'before', 1);
    const page = await loadAuditPage(ledger, asOfOf(query), { limit, ...(before === undefined ? {} : { before }) });
    return { entries: page.entries, total: page.total, next: page.older === null || page.older === undefined ? null : nextHref(request.url, { before: String(page.older) }) };
  });

  app.get('/api/verify', async (request, reply) => {
    const text = queryOf(request.url).get('expect_head');
    const expectHead = text === undefined || text === '' ? undefined : parseHead(text);
    if (expectHead === null) throw new LedgerError('input.invalidHead', `expect_head '${text}' is not <position>:<hash>; pass the head \`runledger verify\` printed`);
    const report = await verifyLedger(ledger.store, expectHead ? { expectHead } : {});
    return reply.code(report.ok ? 200 : 500).send(report);
  });
}
