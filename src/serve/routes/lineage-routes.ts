import { createGunzip, createInflate } from 'node:zlib';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { BindingIndex } from '../../ingest/openlineage/binding-index.js';
import { checkLineageEvents, ingestLineage, InvalidLineageError } from '../../ingest/openlineage/ingest-lineage.js';
import { LedgerError } from '../../errors.js';
import { writerLedger } from '../writer-ledger.js';
import type { ServeDeps } from '../serve-options.js';

/** Most OpenLineage events one request may carry (producers send one at a time; a batch is a replay). */
export const MAX_LINEAGE_BATCH = 1000;

/**
 * `POST /api/v1/lineage`: the OpenLineage HTTP endpoint (the path Airflow's
 * HTTP transport and Marquez use), one event or a JSON array of events, with
 * the write token as `Authorization: Bearer`. Every event gets an answer in
 * `results` (recorded, duplicate, ignored, or refused with the CLI's code and
 * message); the status is 200 when none was refused, else the status of the
 * first refusal (400 schema, 404 unbound job with `--strict-lineage`, 409 a
 * rule), so a transport that only reads the status still sees it. A batch with
 * an event that breaks the schema is refused whole (400, each invalid event's
 * path listed), nothing written. A batch takes at most `MAX_LINEAGE_BATCH` events and an event at most
 * `MAX_EVENT_DATASETS` inputs and as many outputs (400 naming the cap). Re-sending is safe: an event already in the
 * ledger is a duplicate.
 *
 * A body sent with `Content-Encoding: gzip` or `deflate` (the HTTP transport's
 * `compression: gzip`) is decoded as it arrives, and the server's body limit
 * counts the decoded bytes: a small body that inflates past it is 413.
 *
 * @example
 * curl -H 'Authorization: Bearer s3cret' -H 'content-type: application/json' \
 *   --data @start.json http://127.0.0.1:8080/api/v1/lineage
 */
export function lineageRoutes(app: FastifyInstance, deps: ServeDeps): void {
  const bindings = new BindingIndex(deps.ledger.store);
  app.post('/api/v1/lineage', { config: { scope: 'write' }, preParsing: async (request, reply, payload) => decoded(request, reply, payload) }, async (request, reply) => {
    const body = request.body;
    if (body === undefined || body === null || typeof body !== 'object') {
      throw new LedgerError('input.invalidBody', 'the body must be one OpenLineage event (a JSON object) or a JSON array of them, sent as application/json');
    }
    const values = Array.isArray(body) ? (body as unknown[]) : [body];
    if (values.length === 0) throw new LedgerError('input.invalidBody', 'the batch is empty; send at least one OpenLineage event');
    if (values.length > MAX_LINEAGE_BATCH) {
      throw new LedgerError('input.tooManyItems', `the batch holds ${values.length} events; at most ${MAX_LINEAGE_BATCH} are taken in one request: send the rest in further requests`);
    }
    let events;
    try {
      events = checkLineageEvents(values);
    } catch (error) {
      if (!(error instanceof InvalidLineageError)) throw error;
      return reply.code(400).send({ error: { code: error.code, message: error.message, invalid: error.invalid } });
    }
    const report = await ingestLineage(writerLedger(request, deps.ledger), bindings, events, { auto: deps.openlineageAuto ?? false, strict: deps.strictLineage ?? false });
    const { written: _written, dryRun: _dryRun, ...answer } = report;
    const refused = report.results.find((r) => r.outcome === 'refused');
    if (!refused) return reply.code(200).send(answer);
    // The API's one error body (the first refusal) beside every event's result.
    const message = values.length === 1 ? refused.message : `event ${refused.index + 1} of ${values.length}: ${refused.message}${report.refused > 1 ? ` (${report.refused} refused in all; see results)` : ''}`;
    return reply.code(refused.status).send({ error: { code: refused.code, message }, ...answer });
  });
}

/** An HTTP error fastify's error handler answers with its status and message. */
function httpError(statusCode: number, message: string): Error {
  return Object.assign(new Error(message), { statusCode });
}

/**
 * The request body as the parser should read it: decoded when it came
 * compressed. The stream reports the encoded bytes it took in
 * (`receivedEncodedLength`), as fastify expects of a decoding stream, so the
 * Content-Length check still holds, while the body limit counts decoded bytes.
 */
function decoded(request: FastifyRequest, reply: FastifyReply, payload: Readable): Readable {
  const encoding = String(request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return payload;
  if (encoding !== 'gzip' && encoding !== 'x-gzip' && encoding !== 'deflate') {
    throw httpError(415, `Content-Encoding '${encoding}' is not supported; send the body as is, or with gzip or deflate`);
  }
  const inflater = encoding === 'deflate' ? createInflate() : createGunzip();
  const stream = inflater as typeof inflater & { receivedEncodedLength: number };
  stream.receivedEncodedLength = 0;
  payload.on('data', (chunk: Buffer) => {
    stream.receivedEncodedLength += chunk.length;
  });
  inflater.on('error', (error) => {
    Object.assign(error, { statusCode: 400, message: `the body is not valid ${encoding} data (${error.message}); send it as Content-Encoding says, or without one` });
  });
  // A client that goes away mid-body fails the parse (400) rather than leaving the parser waiting.
  payload.once('aborted', () => inflater.destroy(httpError(400, 'the client closed the connection before the body ended')));
  // Once answered (a 413 stops reading), nothing goes on inflating in the background. Not the request's own
  // `close`: on a real socket it fires as soon as the last encoded byte is read, before the inflater has flushed
  // its last output and `end`, and destroying it there left the parser waiting for an end that never came.
  reply.raw.once('close', () => inflater.destroy());
  return payload.pipe(inflater);
}
