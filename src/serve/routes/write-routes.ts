import type { FastifyInstance } from 'fastify';
import { parseDuration } from '../../duration.js';
import { writerLedger } from '../writer-ledger.js';
import { ClearBody, clearInput, ControlBody, FailBody, HeartbeatBody, parseBody, StartBody, startInput, SucceedBody } from '../write-bodies.js';
import type { ServeDeps } from '../serve-options.js';

type PipelineParams = { Params: { pipeline: string } };
type RunParams = { Params: { runId: string } };

/**
 * The HTTP write API: the CLI's `start`, `succeed`, `fail`, `heartbeat` and
 * `clear` as POST routes that need the write token. Each handler parses its
 * body with the command's zod schema, makes one ledger call, and answers
 * with the document the CLI prints with `--json`; refusals come back as the
 * CLI's error code and message with the status of its exit code. What a
 * write records names its writer: `http:<name>` of the write token used.
 *
 * @example
 * curl -X POST -H 'Authorization: Bearer s3cret' -H 'content-type: application/json' \
 *   -d '{"date":"2026-11-02"}' http://127.0.0.1:8080/api/pipelines/etl_orders/runs
 */
export function writeRoutes(app: FastifyInstance, deps: ServeDeps): void {
  const write = { config: { scope: 'write' as const } };

  app.post<PipelineParams>('/api/pipelines/:pipeline/runs', write, async (request, reply) => {
    const input = startInput(request.params.pipeline, parseBody(StartBody, request.body));
    const run = await writerLedger(request, deps.ledger).start(input);
    return reply.code(201).send(run);
  });

  app.post<RunParams>('/api/runs/:runId/succeed', write, async (request) => {
    const body = parseBody(SucceedBody, request.body);
    return writerLedger(request, deps.ledger).succeed({ runId: request.params.runId, metrics: body.metrics ?? {}, outputs: body.outputs ?? [] });
  });

  app.post<RunParams>('/api/runs/:runId/fail', write, async (request) => {
    const body = parseBody(FailBody, request.body);
    return writerLedger(request, deps.ledger).fail({ runId: request.params.runId, error: body.error, code: body.code ?? null });
  });

  app.post<RunParams>('/api/runs/:runId/heartbeat', write, async (request) => {
    const body = parseBody(HeartbeatBody, request.body);
    return writerLedger(request, deps.ledger).heartbeat({ runId: request.params.runId, ...(body.lease === undefined ? {} : { lease: parseDuration(body.lease, 'lease') }) });
  });

  app.post<PipelineParams>('/api/pipelines/:pipeline/clear', write, async (request) => {
    return writerLedger(request, deps.ledger).clear(clearInput(request.params.pipeline, parseBody(ClearBody, request.body)));
  });

  // Run control: the CLI's pause, unpause, retire and unretire of one pipeline, answering `{ results }` as their --json does.
  app.post<PipelineParams>('/api/pipelines/:pipeline/pause', write, async (request) => {
    const body = parseBody(ControlBody, request.body ?? {});
    return { results: await writerLedger(request, deps.ledger).pause({ pipelines: [request.params.pipeline], reason: body.reason ?? '' }) };
  });
  app.post<PipelineParams>('/api/pipelines/:pipeline/unpause', write, async (request) => {
    const body = parseBody(ControlBody, request.body ?? {});
    return { results: await writerLedger(request, deps.ledger).unpause({ pipelines: [request.params.pipeline], ...(body.reason === undefined ? {} : { reason: body.reason }) }) };
  });
  app.post<PipelineParams>('/api/pipelines/:pipeline/retire', write, async (request) => {
    const body = parseBody(ControlBody, request.body ?? {});
    return { results: [await writerLedger(request, deps.ledger).retire({ pipeline: request.params.pipeline, reason: body.reason ?? '' })] };
  });
  app.post<PipelineParams>('/api/pipelines/:pipeline/unretire', write, async (request) => {
    const body = parseBody(ControlBody, request.body ?? {});
    return { results: [await writerLedger(request, deps.ledger).unretire({ pipeline: request.params.pipeline, ...(body.reason === undefined ? {} : { reason: body.reason }) })] };
  });
}
