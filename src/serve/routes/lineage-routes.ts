import type { FastifyInstance } from 'fastify';
import { BindingIndex } from '../../ingest/openlineage/binding-index.js';
import { checkLineageEvents, ingestLineage, InvalidLineageError } from '../../ingest/openlineage/ingest-lineage.js';
import { LedgerError } from '../../errors.js';
import { writerLedger } from '../writer-ledger.js';
import type { ServeDeps } from '../serve-options.js';

/**
 * `POST /api/v1/lineage`: the OpenLineage HTTP endpoint (the path Airflow's
 * HTTP transport and Marquez use), one event or a JSON array of events, with
 * the write token as `Authorization: Bearer`. Every event gets an answer in
 * `results` (recorded, duplicate, ignored, or refused with the CLI's code and
 * message); the status is 200 when none was refused, else the status of the
 * first refusal (400 schema, 404 unbound job, 409 a rule), so a transport that
 * only reads the status still sees it. A batch with an event that breaks the
 * schema is refused whole (400, each invalid event's path listed), nothing
 * written. Re-sending a whole batch is safe: what was recorded is a duplicate.
 *
 * @example
 * curl -H 'Authorization: Bearer s3cret' -H 'content-type: application/json' \
 *   --data @start.json http://127.0.0.1:8080/api/v1/lineage
 */
export function lineageRoutes(app: FastifyInstance, deps: ServeDeps): void {
  const bindings = new BindingIndex(deps.ledger.store);
  app.post('/api/v1/lineage', { config: { scope: 'write' } }, async (request, reply) => {
    const body = request.body;
    if (body === undefined || body === null || typeof body !== 'object') {
      throw new LedgerError('input.invalidBody', 'the body must be one OpenLineage event (a JSON object) or a JSON array of them, sent as application/json');
    }
    const values = Array.isArray(body) ? (body as unknown[]) : [body];
    if (values.length === 0) throw new LedgerError('input.invalidBody', 'the batch is empty; send at least one OpenLineage event');
    let events;
    try {
      events = checkLineageEvents(values);
    } catch (error) {
      if (!(error instanceof InvalidLineageError)) throw error;
      return reply.code(400).send({ error: { code: error.code, message: error.message, invalid: error.invalid } });
    }
    const report = await ingestLineage(writerLedger(request, deps.ledger), bindings, events, { auto: deps.openlineageAuto ?? false });
    const { written: _written, dryRun: _dryRun, ...answer } = report;
    const refused = report.results.find((r) => r.outcome === 'refused');
    if (!refused) return reply.code(200).send(answer);
    // The API's one error body (the first refusal) beside every event's result.
    const message = values.length === 1 ? refused.message : `event ${refused.index + 1} of ${values.length}: ${refused.message}${report.refused > 1 ? ` (${report.refused} refused in all; see results)` : ''}`;
    return reply.code(refused.status).send({ error: { code: refused.code, message }, ...answer });
  });
}
