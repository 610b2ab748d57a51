// Writes a valid full runledger export of N events (default 1,000,000) without a database:
// P hourly pipelines, each slot started and succeeded, sealed onto one hash chain with the
// same code the stores use. `runledger import` of it builds a million-event ledger quickly.
//
//   node scripts/scale/generate-export.mjs <out.jsonl> [events] [pipelines]
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { GENESIS_HASH } from '../../dist/events/hash-chain.js';
import { eventLine, headerLine, trailerLine } from '../../dist/src/audit/export-format.js';
import { buildDefinition } from '../../dist/src/ledger/build-definition.js';
import { sealEvents } from '../../dist/src/store/seal-events.js';
import { createTimetableHistory } from '../../dist/src/timetable/timetable-history.js';

const [out, eventsArg = '1000000', pipelinesArg = '40'] = process.argv.slice(2);
if (!out) {
  console.error('usage: generate-export.mjs <out.jsonl> [events] [pipelines]');
  process.exit(2);
}
const total = Number(eventsArg);
const pipelineCount = Number(pipelinesArg);
const metadata = { actor: 'scale@test', toolVersion: 'scale' };
const recordedAt = (ms) => new Date(ms).toISOString();

const pipelines = Array.from({ length: pipelineCount }, (_, i) => {
  const definition = buildDefinition({ pipeline: `scale_${String(i).padStart(3, '0')}`, schedule: '@hourly', start: '2020-01-01', leaseMs: 3_600_000 });
  const timetable = createTimetableHistory(definition);
  return { definition, timetable, slot: null };
});

const file = createWriteStream(out);
const write = async (text) => {
  if (!file.write(text)) await once(file, 'drain');
};
// The header names the head the file ends on, which is known only once every event is sealed:
// the chain is computed twice, once to learn the head and once to write it (sealing is cheap).
async function emit(sink) {
  for (const p of pipelines) p.slot = p.timetable.first();
  let head = { position: 0, hash: GENESIS_HASH };
  let count = 0;
  let seq = 0;
  let lastAt = 0;
  const versions = new Map();
  const batch = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const sealed = sealEvents(head, batch.splice(0));
    const last = sealed.at(-1).event;
    head = { position: last.position, hash: last.hash };
    await sink(sealed.map((s) => `${eventLine({ position: s.event.position, payload: s.payload, prevHash: s.event.prevHash, hash: s.event.hash })}\n`).join(''));
  };
  const push = (event, stream, at) => {
    const version = (versions.get(stream) ?? 0) + 1;
    versions.set(stream, version);
    seq += 1;
    lastAt = Math.max(lastAt, at);
    batch.push({ event: { ...event, eventId: `S${String(seq).padStart(25, '0')}`, stream, recordedAt: recordedAt(at), metadata }, streamVersion: version });
    count += 1;
  };
  for (const p of pipelines) push({ type: 'PipelineDefined', schemaVersion: 1, data: p.definition }, p.definition.pipeline, Date.parse('2020-01-01T00:00:00Z'));
  outer: for (;;) {
    for (const p of pipelines) {
      if (count + 2 > total) break outer;
      const slot = p.slot;
      const at = Date.parse(slot.runAfter);
      const stream = `${p.definition.pipeline}/${slot.date}`;
      const runId = `R${String(seq).padStart(25, '0')}`;
      push(
        {
          type: 'RunStarted',
          schemaVersion: 1,
          data: {
            pipeline: p.definition.pipeline,
            date: slot.date,
            runId,
            attempt: 1,
            runType: 'scheduled',
            logicalDate: slot.logicalDate,
            dataInterval: slot.dataInterval,
            runAfter: slot.runAfter,
            leaseExpiresAt: recordedAt(at + 3_600_000),
            force: false,
            offSchedule: false,
            takeoverOf: null,
          },
        },
        stream,
        at,
      );
      push({ type: 'RunSucceeded', schemaVersion: 1, data: { pipeline: p.definition.pipeline, date: slot.date, runId, metrics: { rows: seq % 1000 }, outputs: [] } }, stream, at + 60_000);
      p.slot = p.timetable.next(slot);
      if (batch.length >= 5000) await flush();
    }
  }
  await flush();
  return { head, count, lastAt };
}

// Taken right after the last event, so `replay` (whose "now" is exportedAt) lists the recorded dates, not years of missing ones.
const { head, count, lastAt } = await emit(async () => undefined);
await write(`${headerLine({ exportedAt: new Date(lastAt + 60_000).toISOString(), toolVersion: 'scale', filtered: false, pipeline: null, ledgerHead: head })}\n`);
await emit(write);
await write(`${trailerLine(count, head)}\n`);
file.end();
await once(file, 'finish');
console.log(`wrote ${count} events to ${out}; head ${head.position}:${head.hash}`);
