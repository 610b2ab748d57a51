import { parentPort, workerData } from 'node:worker_threads';
import { plainEventCheck, UNSETTLED } from '../../events/event-schema-check.js';
import { isLedgerError } from '../errors.js';
import { sha256Hex } from '../store/seal-events.js';
import { ExportChecker } from './export-format.js';
import { fileLineBatches } from './read-export-file.js';
import { IMPORT_BATCH_ROWS, IMPORT_BATCHES_IN_FLIGHT, type WorkerMessage } from './worker-protocol.js';

// The worker thread of `import`: it reads the export file and checks every line (JSON, hash over the
// exact payload, a valid event, links, ids, versions, the trailer) with the same `ExportChecker` as the
// in-thread path, and posts each batch of checked rows as flat values while the main thread inserts the
// batch before. Parsing, hashing and validating took as long as the inserts themselves.

const port = parentPort;
if (!port) throw new Error('import-worker: run it as a worker thread (new Worker), not as a script');
const { path } = workerData as { path: string };

// The main thread grants a batch back when it has inserted one, so the file is never read far ahead of the
// inserts and memory follows a few batches, not the file.
let credit = IMPORT_BATCHES_IN_FLIGHT;
let wake: (() => void) | null = null;
port.on('message', () => {
  credit += 1;
  wake?.();
  wake = null;
});

async function send(values: unknown[]): Promise<void> {
  while (credit === 0) await new Promise<void>((resolve) => (wake = resolve));
  credit -= 1;
  port?.postMessage({ kind: 'rows', values } satisfies WorkerMessage);
}

// Loading zod and the event schemas was most of this thread's start-up, before its first line, and the plain
// checks settle every event runledger writes. So the event check starts without zod: on an event the plain
// checks cannot settle it gives up before the line changed anything, the schemas are loaded, and the line is
// taken again with the full check (`checkEventSchema`), which words every rejection as the in-thread path does.

async function check(): Promise<void> {
  const checker = new ExportChecker(path, sha256Hex, plainEventCheck);
  checker.handOnChecked = true;
  let values: unknown[] = [];
  for await (const { lines, last } of fileLineBatches(path, 'export file')) {
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i] as string;
      const lastLine = last && i === lines.length - 1;
      let row;
      try {
        row = checker.line(line, lastLine);
      } catch (error) {
        if (error !== UNSETTLED) throw error;
        checker.eventCheck = (await import('../../events/decode-event.js')).checkEventSchema;
        row = checker.retakeLine(line, lastLine);
      }
      if (!row) continue;
      const event = row.checked;
      if (!event) throw new Error('import-worker: the checker handed on a row without its event');
      const runId = 'runId' in event.data ? event.data.runId : null;
      values.push(row.position, row.payload, row.prevHash, row.hash, row.signature ?? null, event.eventId, event.stream, event.streamVersion, event.data.pipeline, runId, event.type, event.recordedAt);
      if (values.length >= IMPORT_BATCH_ROWS * 12) {
        await send(values);
        values = [];
      }
    }
  }
  // As in the in-thread path, a file without its trailer fails before its last batch is handed on.
  const { trailer } = checker.end();
  if (values.length > 0) await send(values);
  port?.postMessage({ kind: 'end', head: trailer.head } satisfies WorkerMessage);
}

check().then(
  () => port.close(),
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    port.postMessage({ kind: 'error', code: isLedgerError(error) ? error.code : null, message } satisfies WorkerMessage);
    port.close();
  },
);
