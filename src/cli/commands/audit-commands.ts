import { existsSync, rmSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { diffDocuments, formatDifference } from '../../audit/diff-documents.js';
import { exportLedger } from '../../audit/export-ledger.js';
import { assertImportable, importExportFile } from '../../audit/import-ledger.js';
import { readExportHeader } from '../../audit/read-export-file.js';
import { replayExportFile } from '../../audit/replay-export.js';
import { isPostgresUrl } from '../../store/open-store.js';
import { parseHead } from '../../audit/verify-chain.js';
import { verifyLedger } from '../../audit/verify-ledger.js';
import { verifyProjections, type ProjectionDifference } from '../../audit/verify-projections.js';
import { ed25519Checker, hmacChecker, hmacSecretOf, SIGNING_KEY_ENV, type SignatureChecker } from '../../store/event-signer.js';
import { verifyCheckpoints, type CheckpointCheck } from '../../ledger/projection-checkpoint.js';
import { ExitCode, LedgerError } from '../../errors.js';
import { toolVersion } from '../../runtime.js';
import { exportOpenLineage } from '../../ingest/openlineage/export-openlineage.js';
import type { Ledger } from '../../ledger/ledger.js';
import type { ChainHead, EventStore } from '../../store/event-store.js';
import { sha256Hex } from '../../store/seal-events.js';
import { type CliContext, type GlobalOptions } from '../cli-context.js';
import { RunExit } from '../create-program.js';
import { printStateView } from '../print-state-view.js';

/** Exit code of a check that does not hold. */
const CHECK_FAILED = 7 as ExitCode;

/** The integrity failure a read-model row that differs from the fold is: which row, which field, both values. */
function projectionError(d: ProjectionDifference): LedgerError {
  const row = d.table === 'pipeline' ? `the summary row of ${d.pipeline}` : `${d.pipeline} ${d.table} ${d.key}`;
  const what = d.field === '(row)' ? `the tables ${d.stored === 'absent' ? 'lack that row' : 'hold a row the fold does not give'}` : `field ${d.field} is ${JSON.stringify(d.stored)} in the tables but ${JSON.stringify(d.folded)} in the fold`;
  return new LedgerError('integrity.projectionDiffers', `the read models differ from the events at ${row}: ${what}; the events are the truth: run \`runledger rebuild\` to refold the read models`);
}

/** Compares every checkpoint with a full rebuild, and drops those that queries must not use. */
async function checkCheckpoints(store: EventStore): Promise<CheckpointCheck[]> {
  const checks = await verifyCheckpoints(store);
  for (const check of checks) if (check.status !== 'ok') await store.checkpoints?.discard(check.pipeline);
  return checks;
}
import { READ_LIMITS, readBoundedText } from '../read-bounded-file.js';
import { writeFileAtomically } from '../write-file-atomically.js';
import { writeJsonDocument } from '../write-json-document.js';
import { parseInstant } from '../../ledger/parse-instant.js';
import { parseAsOf } from '../../ledger/parse-instant.js';

/**
 * `verify`, `export`, `import` and `replay`: proving the ledger
 * was not edited, moving it, and rebuilding its state from a file.
 *
 * @example
 * runCli(['verify', '--json'], deps, [registerAuditCommands]);
 */
export function registerAuditCommands(program: Command, ctx: CliContext): void {
  program
    .command('verify')
    .summary('re-walk the hash chain; exit 5 naming the first event that was altered, inserted or removed')
    .description(
      'Re-walks the hash chain from the first event: gapless positions, every prevHash and hash, and checks ' +
        'runledger_meta. Prints the head (position:hash). A ledger rewritten in full, or cut short at its end, is ' +
        'still a valid chain: keep the head somewhere else and pass it as --expect-head to catch that too. With ' +
        '--public-key or --signing-secret it also checks every event\'s signature (exit 7 naming the first event ' +
        'whose signature is missing or wrong).',
    )
    .option('--expect-head <position:hash>', 'a head recorded earlier: the chain must still pass through it')
    .option('--public-key <file>', 'an Ed25519 public key PEM file (not the private key): every event must carry a good signature by its private key')
    .option('--signing-secret [secret]', `the HMAC secret appends were signed with; without a value, the one in ${SIGNING_KEY_ENV}=hmac:<secret>`)
    .option('--signed-from <position>', 'with --public-key or --signing-secret: check signatures from this position (up to the head) on; the events before it were appended before signing began')
    .addOption(new Option('--head <position:hash>', 'same as --expect-head').hideHelp())
    .option('--checkpoints', 'also compare every projection checkpoint with a full rebuild of its pipeline (exit 7 when one differs)')
    .option('--projections', 'also fold every pipeline afresh and compare each read-model row with it (exit 5 naming the first pipeline, date and field that differ)')
    .option('--json', 'print one JSON document (and still exit 5 when the chain is broken)')
    .addHelpText(
      'after',
      '\nExamples:\n  runledger verify\n  runledger verify --projections\n  runledger verify --checkpoints\n  runledger verify --expect-head 15:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n  runledger verify --public-key signing-key.pub.pem',
    )
    .action(async (opts: { expectHead?: string; head?: string; json?: boolean; checkpoints?: boolean; projections?: boolean; publicKey?: string; signingSecret?: string | true; signedFrom?: string }) => {
      const text = opts.expectHead ?? opts.head;
      const expectHead = text === undefined ? undefined : headOption(text);
      const signatures = signatureChecker(opts, ctx.deps.env[SIGNING_KEY_ENV]);
      const signedFrom = opts.signedFrom === undefined ? undefined : positionOption(opts.signedFrom);
      if (signedFrom !== undefined && !signatures) {
        throw new LedgerError('input.missingOption', '--signed-from says where signature checks begin, and needs a key to check them with; add --public-key <file> or --signing-secret');
      }
      const [report, checkpoints, projections] = await ctx.withLedger(false, async (ledger) => {
        // Past the head no event would be checked, and "ok" would vouch for signatures nobody looked at.
        const head = signedFrom === undefined ? null : await ledger.store.head();
        if (head !== null && signedFrom !== undefined && signedFrom > head.position) {
          throw new LedgerError('input.invalidPosition', `--signed-from ${signedFrom} is past the ledger's last event (position ${head.position}); pass a position up to ${head.position}`);
        }
        const verified = await verifyLedger(ledger.store, {
          ...(expectHead ? { expectHead } : {}),
          ...(signatures ? { signatures } : {}),
          ...(signedFrom === undefined ? {} : { signedFrom }),
        });
        return [
          verified,
          opts.checkpoints && verified.ok ? await checkCheckpoints(ledger.store) : undefined,
          opts.projections && verified.ok ? await verifyProjections(ledger.store) : undefined,
        ] as const;
      });
      // runledger_meta is not on the chain: an edited row fails verify as a broken link does.
      const meta = report.meta.problem;
      // A bad signature is the verdict only when the chain itself holds (firstBadPosition is the signature's);
      // a chain broken after it is the graver finding (exit 5).
      const badSignature = report.signatures?.ok === false && report.firstBadPosition === report.signatures.position ? report.signatures : null;
      const differing = checkpoints?.filter((c) => c.status === 'differs') ?? [];
      if (opts.json) {
        ctx.json({ ...report, ...(checkpoints === undefined ? {} : { checkpoints }), ...(projections === undefined ? {} : { projections }) });
        if (badSignature) throw new RunExit(CHECK_FAILED);
        if (!report.ok) throw new RunExit(ExitCode.integrity);
        if (projections?.ok === false) throw new RunExit(ExitCode.integrity);
        if (differing.length > 0) throw new RunExit(CHECK_FAILED);
        return;
      }
      if (badSignature) {
        throw new LedgerError(
          'integrity.signatureInvalid',
          `signature check fails at position ${badSignature.position}, ${badSignature.problem}; the chain up to ${headText(report.head)} holds: either no holder of the signing key appended that event (forged, or appended without ${SIGNING_KEY_ENV}) or the ledger is signed with another key`,
          { exitCode: CHECK_FAILED },
        );
      }
      if (meta !== null && report.firstBadPosition === null) throw new LedgerError('integrity.metaAltered', `${meta}; the events' chain itself holds (head ${headText(report.head)})`);
      if (!report.ok) {
        throw new LedgerError(
          'integrity.chainBroken',
          `the ledger fails verification at position ${report.firstBadPosition}: ${report.problem}. The last intact head is ${headText(report.head)}; compare with an export or backup`,
        );
      }
      const signedText = report.signatures ? `, every event${report.signatures.signedFrom > 1 ? ` from position ${report.signatures.signedFrom}` : ''} signed (${report.signatures.scheme})` : '';
      ctx.out(`ok: ${report.events} events, chain intact${expectHead ? `, passes through the expected head ${expectHead.position}` : ''}${signedText}`);
      ctx.out(`head: ${headText(report.head)}`);
      if (checkpoints !== undefined) {
        const ok = checkpoints.filter((c) => c.status === 'ok').length;
        const ignored = checkpoints.length - ok - differing.length;
        ctx.out(`checkpoints: ${ok} equal to a full rebuild${ignored > 0 ? `, ${ignored} ignored by queries (another projection version or chain) and discarded` : ''}`);
        if (differing.length > 0) {
          throw new LedgerError(
            'integrity.checkpointDiffers',
            `the projection checkpoint of ${differing.map((c) => `${c.pipeline} (position ${c.position})`).join(', ')} differed from a full rebuild and was discarded, so queries fold the events again; please report this as a bug`,
            { exitCode: CHECK_FAILED },
          );
        }
      }
      if (projections !== undefined) {
        if (projections.difference !== null) throw projectionError(projections.difference);
        ctx.out(`read models: ${projections.rows.toLocaleString('en')} rows of ${projections.pipelines} pipeline(s) equal to a fresh fold of the events`);
      }
      if (!expectHead) ctx.note('record this head outside the ledger and pass it later as --expect-head: only that catches a full rewrite or a removed last event');
    });

  program
    .command('rebuild')
    .summary('drop the read models and fold them again from the events')
    .description(
      'The events are the only truth; the read models (a row per pipeline, date and run, kept in each append\'s ' +
        'transaction) answer the everyday queries. rebuild drops them and folds every event again, in one ' +
        'transaction, showing progress on a terminal. It is never needed for correctness (a ledger of another ' +
        'release rebuilds on first use, and `verify --projections` proves the tables equal the fold); run it after ' +
        'restoring tables by hand or to time a refold.',
    )
    .option('--json', 'print one JSON document: { pipelines, events, dates, runs }')
    .addHelpText('after', '\nExamples:\n  runledger rebuild\n  runledger rebuild --json && runledger verify --projections')
    .action(async (opts: { json?: boolean }) => {
      const result = await ctx.withLedger(false, (ledger) => ledger.rebuild());
      if (opts.json) return ctx.json(result);
      ctx.out(`rebuilt the read models from ${result.events.toLocaleString('en')} events: ${result.pipelines} pipeline(s), ${result.dates.toLocaleString('en')} date(s), ${result.runs.toLocaleString('en')} run(s)`);
    });

  program
    .command('export')
    .summary('write the ledger as JSON Lines: header, every stored event verbatim with its chain link, trailer with the head')
    .option('--pipeline <name>', 'only this pipeline (a filtered export: for replay, not for import)')
    .option('--out <file>', 'write to this file (atomically) instead of stdout')
    .addOption(new Option('--format <format>', 'jsonl: the ledger itself (for import, replay, verify); openlineage: its runs as OpenLineage events with nominalTime, for Marquez or DataHub').choices(['jsonl', 'openlineage']).default('jsonl'))
    .addHelpText('after', '\nExamples:\n  runledger export --out ledger.jsonl\n  runledger export --pipeline etl_orders > etl_orders.jsonl\n  runledger export --format openlineage --pipeline etl_orders --out etl_orders.openlineage.jsonl')
    .action(async (opts: { pipeline?: string; out?: string; format: 'jsonl' | 'openlineage' }) => {
      await ctx.withLedger(false, async (ledger) => {
        if (opts.pipeline !== undefined) await ledger.pipeline(opts.pipeline);
        if (opts.format === 'openlineage') return exportOpenLineageTo(ctx, ledger, opts);
        const lines = exportLedger(ledger.store, {
          exportedAt: new Date(ledger.now()).toISOString(),
          toolVersion,
          ...(opts.pipeline === undefined ? {} : { pipeline: opts.pipeline }),
        });
        let last = '';
        if (opts.out === undefined) {
          for await (const chunk of lines) {
            ctx.deps.stdout(chunk);
            last = chunk;
            // Wait for each chunk to be written: the reads are synchronous (SQLite), so without this wait the
            // loop never yields to the event loop and the written chunks pile up (1.1 GB for a 1M-event export).
            // It also makes the success line below wait for the data (a full disk fails here, not silently).
            await ctx.flush();
          }
        } else {
          last = await writeFileAtomically(opts.out, lines, { flag: '--out', example: 'ledger.jsonl' });
        }
        const trailer = JSON.parse(last) as { events: number; head: ChainHead };
        ctx.note(`exported ${trailer.events} events${opts.out === undefined ? '' : ` to ${opts.out}`}; head ${headText(trailer.head)}`);
      });
    });

  program
    .command('import')
    .summary('load a full export into a new, empty ledger: same positions, bytes and head hash; all or nothing')
    .description(
      'Reads the file line by line, checking each line (JSON, event schema, hash, chain link, gapless positions, ' +
        'trailer) as it writes it inside one transaction: the first bad line rolls everything back, so nothing ' +
        'is imported unless all of it holds. Memory follows a batch of lines, not the file. The target ledger ' +
        'must be empty; filtered exports are refused.',
    )
    .argument('<file>', 'a file written by `runledger export`')
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExample:\n  runledger --db ./copy.db import ledger.jsonl && runledger --db ./copy.db verify')
    .action(async (file: string, opts: { json?: boolean }) => {
      const header = await withConsequence('nothing was imported', () => readExportHeader(file, sha256Hex));
      assertImportable(header);
      const fresh = !isPostgresUrl(ctx.db) && !existsSync(ctx.db);
      let head: ChainHead;
      try {
        head = await withConsequence('nothing was imported', () =>
          ctx.withLedger(true, async (ledger) => {
            // The store builds the read models in the import's own transaction; checkpoints of whole states are
            // no longer needed by the everyday queries, and are made lazily by the readers that fold.
            return importExportFile(ledger.store, file);
          }),
        );
      } catch (error) {
        // The import rolled back; a ledger file this command created for it would be an empty leftover.
        if (fresh) for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${ctx.db}${suffix}`, { force: true });
        throw error;
      }
      if (opts.json) return ctx.json({ imported: head.position, head });
      ctx.out(`imported ${head.position} events into ${withoutPassword(ctx.db)}; head ${headText(head)}, the same as the export's`);
    });

  program
    .command('replay')
    .summary('rebuild the state of a pipeline from an export, without a database; --expect compares it')
    .description(
      'Folds an export with the same code as `state` and prints the same document. With --expect, compares ' +
        'it with an expected state document and exits 7 with one line per difference, naming the date. "now" is --now or ' +
        "$RUNLEDGER_NOW when given, otherwise the export's exportedAt (so the result does not drift with the clock).",
    )
    .argument('<file>', 'a file written by `runledger export` (full or --pipeline)')
    .option('--pipeline <name>', 'which pipeline (needed when the file holds several)')
    .option('--as-of <instant|position>', 'replay as the ledger stood at that instant or event position')
    .option('--expect <file>', 'an expected state document (`state --json` output)')
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExamples:\n  runledger replay etl_orders.jsonl --pipeline etl_orders\n  runledger replay etl_orders.jsonl --expect expected-state.json')
    .action(async (file: string, opts: { pipeline?: string; asOf?: string; expect?: string; json?: boolean }) => {
      const nowText = program.opts<GlobalOptions>().now ?? ctx.deps.env['RUNLEDGER_NOW'];
      const asOf = parseAsOf(opts.asOf);
      const expected = opts.expect === undefined ? undefined : readExpectation(opts.expect);
      const nowMs = nowText === undefined || nowText === '' ? undefined : parseInstant(nowText, '--now');
      const zones = new Map<string, string>();
      const view = await withConsequence('nothing was replayed', () =>
        replayExportFile(file, {
          zones,
          ...(opts.pipeline === undefined ? {} : { pipeline: opts.pipeline }),
          ...(asOf ? { asOf } : {}),
          ...(nowMs === undefined ? {} : { nowMs }),
        }),
      );
      if (expected === undefined) return opts.json ? writeJsonDocument(ctx, view, 'dates') : printStateView(ctx, view, zones.get(view.pipeline));
      const differences = diffDocuments(expected, JSON.parse(JSON.stringify(view)) as unknown);
      if (opts.json) ctx.json({ equal: differences.length === 0, differences, actual: view });
      else if (differences.length === 0) ctx.out(`replay of ${file} matches ${opts.expect} (${view.dates.length} dates, watermark ${view.watermark ?? 'none'})`);
      else ctx.out([`replay of ${file} differs from ${opts.expect} in ${differences.length} place${differences.length === 1 ? '' : 's'}:`, ...differences.map(formatDifference)].join('\n'));
      // 7, not 1: a replay that differs is an expectation that does not hold, not an unexpected error.
      if (differences.length > 0) throw new RunExit(ExitCode.checkFailed);
    });
}

/** `export --format openlineage`: the runs as OpenLineage events, on stdout or atomically into --out. */
async function exportOpenLineageTo(ctx: CliContext, ledger: Ledger, opts: { pipeline?: string; out?: string }): Promise<void> {
  let count = 0;
  const lines = (async function* () {
    for await (const line of exportOpenLineage(ledger, { toolVersion, ...(opts.pipeline === undefined ? {} : { pipeline: opts.pipeline }) })) {
      count++;
      yield line;
    }
  })();
  if (opts.out === undefined) for await (const line of lines) ctx.deps.stdout(line);
  else await writeFileAtomically(opts.out, lines, { flag: '--out', example: 'lineage.jsonl' });
  ctx.note(`exported ${count} OpenLineage event${count === 1 ? '' : 's'}${opts.out === undefined ? '' : ` to ${opts.out}`}`);
}

/** The signature check `verify` was asked for, if any. */
function signatureChecker(opts: { publicKey?: string; signingSecret?: string | true }, keyEnv: string | undefined): SignatureChecker | undefined {
  if (opts.publicKey !== undefined && opts.signingSecret !== undefined) {
    throw new LedgerError('input.conflictingOptions', '--public-key and --signing-secret check different kinds of signature; pass the one the ledger was signed with');
  }
  if (opts.publicKey !== undefined) return ed25519Checker(opts.publicKey);
  if (opts.signingSecret === undefined) return undefined;
  const secret = opts.signingSecret === true ? hmacSecretOf(keyEnv) : opts.signingSecret;
  if (secret === null) {
    throw new LedgerError('input.badSigningKey', `--signing-secret without a value takes the secret from ${SIGNING_KEY_ENV}=hmac:<secret>, which is not set; set it or pass the secret`);
  }
  return hmacChecker(secret);
}

function positionOption(text: string): number {
  if (!/^[1-9]\d*$/.test(text)) throw new LedgerError('input.invalidPosition', `--signed-from '${text}' is not a position; pass a whole number from 1`);
  return Number(text);
}

function headOption(text: string): ChainHead {
  const head = parseHead(text);
  if (!head) throw new LedgerError('input.invalidHead', `--expect-head '${text}' is not <position>:<hash>; pass the head \`runledger verify\` printed, e.g. 15:9f86d081…(64 hex digits)`);
  return head;
}

/** A postgres:// URL may carry a password; it has no place on a terminal or in a CI log. */
function withoutPassword(db: string): string {
  try {
    const url = new URL(db);
    if (url.password === '') return db;
    url.password = '***';
    return url.toString();
  } catch {
    return db;
  }
}

function headText(head: ChainHead): string {
  return `${head.position}:${head.hash}`;
}


/** Runs a step that reads an export; its one-line refusal of the file says that nothing happened. */
async function withConsequence<T>(consequence: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof LedgerError && /^(input\.badExport|input\.brokenChain|notFound\.file|input\.unreadableFile)$/.test(error.code) && !error.message.includes(consequence)) {
      throw new LedgerError(error.code, `${error.message}; ${consequence}`);
    }
    throw error;
  }
}

function readExpectation(path: string): unknown {
  const text = readBoundedText(path, { what: 'expected state document', maxBytes: READ_LIMITS.bulk, unreadable: 'input.unreadableFile', notFound: 'notFound.file' });
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new LedgerError('input.invalidExpectation', `${path} is not JSON (${(error as Error).message}); pass a document like \`runledger state <pipeline> --json\` prints`);
  }
}


