/**
 * runledger's library API.
 *
 * @example
 * import { openLedger } from 'runledger';
 * const ledger = await openLedger({ db: './runledger.db' });
 */
export { openLedger, Ledger, type LedgerOptions } from './ledger/ledger.js';
export type * from './ledger/ledger-types.js';
export type { DefineInput } from './ledger/build-definition.js';
export { LedgerError, ExitCode, isLedgerError, type LedgerErrorCode } from './errors.js';
export { createTimetable } from './timetable/create-timetable.js';
export type { Timetable, TimetableSpec } from './timetable/timetable.js';
export type { Slot, DataInterval } from '../projections/slot.js';
export type { RecordedEvent } from '../events/recorded-event.js';
export type { LedgerEvent, EventType } from '../events/ledger-event.js';
export type { EventStore } from './store/event-store.js';
export { openStore } from './store/open-store.js';
