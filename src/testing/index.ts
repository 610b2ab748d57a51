/**
 * Test helpers for runledger users and for runledger's own tests
 * (`import { given, replayFixture } from 'runledger/testing'`).
 *
 * @example
 * import { given, replayFixture } from 'runledger/testing';
 * given(history).when({ kind: 'succeed', runId: 'A', date: '2026-11-02', metrics: {}, outputs: [] }).then('ledger.staleRun');
 * const { actual, expected } = await replayFixture('fixtures/etl-orders.jsonl');
 */
export { given, Given, When, type Expectation, type GivenOptions, type WhenCommand } from './given.js';
export { recordEvents, recordRows, streamOf, type GivenEvent, type RecordOptions } from './record-events.js';
export { replayFixture, type ReplayFixtureOptions } from './replay-fixture.js';
export { openMemoryLedger, type MemoryLedgerOptions } from './open-memory-ledger.js';
export { MemoryEventStore } from '../store/memory-event-store.js';
export { diffDocuments, formatDifference, type Difference } from '../audit/diff-documents.js';
