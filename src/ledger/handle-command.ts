import { appendEvents, retryOrGiveUp, type AppendEventsRequest } from './append-events.js';
import type { LedgerCore } from './ledger-core.js';

/**
 * What one pass of a command decided: its answer, and the events to append for it (none: nothing to write, the
 * answer stands as it is); `label` names what changed under the command when the append keeps conflicting.
 */
export type Decided<T> = { result: T; requests?: AppendEventsRequest[]; reason?: string | undefined; label: string };

/**
 * Runs one command as an optimistic command handler (Emmett's `CommandHandler` is the model): read and decide,
 * append with the versions that were read, and when another writer got there first, read and decide again (up to
 * a bound, then `store.contention`). `decide` states what the command decides; it neither appends nor retries,
 * and it throws a refusal as it finds one.
 *
 * @example
 * return handleCommand(core, async () => {
 *   const { state } = await readPipeline(core, pipeline);
 *   const decision = decideClear(state, { dates, onlyFailed: false });
 *   return { result: decision, requests: requestsOf(decision), reason, label: pipeline };
 * });
 */
export async function handleCommand<T>(core: LedgerCore, decide: () => Promise<Decided<T>>): Promise<T> {
  for (let retry = 0; ; retry++) {
    const decided = await decide();
    if (!decided.requests?.some((request) => request.events.length > 0)) return decided.result;
    if (await appendEvents(core, decided.requests, decided.reason)) return decided.result;
    retryOrGiveUp(retry, decided.label);
  }
}
