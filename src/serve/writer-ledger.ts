import type { FastifyRequest } from 'fastify';
import type { Ledger } from '../ledger/ledger.js';

/**
 * The ledger a write route writes with: the server's, recording the writer
 * of the write token used as `http:<name>` (an unnamed write token as
 * `http:writer`), so the audit trail says which client wrote.
 *
 * @example
 * await writerLedger(request, deps.ledger).start(input)
 */
export function writerLedger(request: FastifyRequest, ledger: Ledger): Ledger {
  return ledger.withActor(`http:${request.writer?.name ?? 'writer'}`);
}
