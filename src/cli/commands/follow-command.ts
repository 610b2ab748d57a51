import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import type { RecordedEvent } from '../../../events/recorded-event.js';
import { parseDuration } from '../../duration.js';
import { childEnvironment } from '../../secrets.js';
import { LedgerError } from '../../errors.js';
import type { SubscribeOptions } from '../../ledger/subscribe.js';
import type { CliContext } from '../cli-context.js';
import { formatTable } from '../../format/format-table.js';
import { inZone } from '../../format/zoned-instant.js';
import { parseWholeNumber } from '../../ledger/parse-whole-number.js';
import { eventType } from '../../ledger/log-input.js';

type FollowOpts = { type?: string; fromPosition?: string; consumer?: string; retries: string; retryDelay: string; passLedgerEnv?: boolean };

/** One event as a JSON line: the fields of `log --json`. */
export function eventJson(e: RecordedEvent): string {
  return JSON.stringify({ position: e.position, type: e.type, eventId: e.eventId, recordedAt: e.recordedAt, stream: e.stream, data: e.data, metadata: e.metadata, hash: e.hash });
}

/** The `RUNLEDGER_EVENT_*` variables a `follow` command gets for one event. */
export function eventEnvironment(e: RecordedEvent): Record<string, string> {
  const data = e.data as { pipeline: string; date?: string; runId?: string };
  return {
    RUNLEDGER_EVENT_POSITION: String(e.position),
    RUNLEDGER_EVENT_TYPE: e.type,
    RUNLEDGER_EVENT_ID: e.eventId,
    RUNLEDGER_EVENT_STREAM: e.stream,
    RUNLEDGER_EVENT_RECORDED_AT: e.recordedAt,
    RUNLEDGER_EVENT_ACTOR: e.metadata.actor,
    RUNLEDGER_EVENT_PIPELINE: data.pipeline,
    ...(data.date === undefined ? {} : { RUNLEDGER_EVENT_DATE: data.date }),
    ...(data.runId === undefined ? {} : { RUNLEDGER_EVENT_RUN_ID: data.runId }),
  };
}

export function registerFollowCommand(program: Command, ctx: CliContext): void {
  registerConsumersCommand(program, ctx);
  program
    .command('follow')
    .summary('print events as JSON Lines as they are appended, or run a command for each; --consumer remembers where it got to')
    .description(
      'Prints each event appended from now on as one JSON line (the fields of `log --json`), as it is appended: ' +
        'PostgreSQL wakes it with LISTEN/NOTIFY, SQLite is polled every 250 ms. After `--`, runs the command once per ' +
        'event instead, with no shell in between, the event as a JSON line on stdin and RUNLEDGER_EVENT_POSITION, _TYPE, ' +
        '_ID, _STREAM, _RECORDED_AT, _ACTOR, _PIPELINE, _DATE and _RUN_ID in the environment; it waits for each command.\n\n' +
        "With --consumer <name>, the position handled is stored in the ledger's database (beside the events, outside " +
        'the hash chain) after each event, so a restarted consumer resumes right after it: every event at least once, in ' +
        'order, none skipped, even when killed (the event in hand may come again). A new consumer starts from now on, or ' +
        'at --from-position. A command that fails (non-zero exit) is retried --retries times, waiting --retry-delay, ' +
        'then twice as long each time; then follow stops with exit 1 and the position stays before that event.',
    )
    .argument('[pipeline]', 'only the events of this pipeline')
    .argument('[command...]', 'after --: the command to run for each event')
    .option('--type <types>', 'only these event types, comma-separated, e.g. RunFailed,RunAbandoned')
    .option('--from-position <n>', 'start at this position (a new consumer; without --consumer, every time)')
    .option('--consumer <name>', "a durable consumer: store the position it handled and resume after it")
    .option('--retries <n>', 'retries of a failing command before follow stops', '3')
    .option('--retry-delay <duration>', 'the pause before the first retry, doubled after each', '1s')
    .option('--pass-ledger-env', "pass runledger's own credentials (RUNLEDGER_DB, RUNLEDGER_*TOKEN*/SECRET/PASSWORD/SIGNING_KEY) to the command; by default they are removed from its environment")
    .addHelpText(
      'after',
      '\nExamples:\n  runledger follow --type RunFailed\n  runledger follow etl_orders --from-position 1 | jq -c .data\n' +
        "  runledger follow --consumer alerts --type RunFailed -- sh -c 'cat >> failed.jsonl'\n" +
        '  runledger follow --consumer pager --type RunFailed,RunAbandoned -- ./page-oncall.sh',
    )
    .action(async (first: string | undefined, rest: string[], opts: FollowOpts) => {
      // Commander hands every word to the positional arguments and drops `--`; its own copy of the
      // command line (untyped, but kept by every version since 2) says which words came after it.
      const raw = (program as unknown as { rawArgs: string[] }).rawArgs;
      const dash = raw.indexOf('--');
      const positional = [...(first === undefined ? [] : [first]), ...rest];
      const afterDash = dash === -1 ? 0 : raw.length - dash - 1;
      const argv = positional.slice(positional.length - afterDash);
      const before = positional.slice(0, positional.length - afterDash);
      if (before.length > 1) {
        throw new LedgerError('input.unexpectedArgument', `follow takes one pipeline, not '${before.join(' ')}'; put the command after --, e.g. follow ${before[0]} -- ${before.slice(1).join(' ')}`);
      }
      const pipeline = before[0];
      if (dash !== -1 && argv.length === 0) throw new LedgerError('input.missingCommand', "no command after --; give one, e.g. -- sh -c 'cat >> events.jsonl'");
      const options: SubscribeOptions = {
        retries: parseWholeNumber(opts.retries, '--retries', 0),
        retryDelay: parseDuration(opts.retryDelay, '--retry-delay'),
        ...(opts.consumer === undefined ? {} : { consumer: opts.consumer }),
        ...(opts.fromPosition === undefined ? {} : { fromPosition: parseWholeNumber(opts.fromPosition, '--from-position', 1) }),
        filter: {
          ...(pipeline === undefined ? {} : { pipeline }),
          ...(opts.type === undefined ? {} : { types: opts.type.split(',').map((t) => eventType(t.trim())) }),
        },
        onRetry: (event, attempt, error, delayMs) =>
          ctx.note(`runledger: ${argv[0] ?? 'handler'} failed on event ${event.position} (${(error as Error).message}); retry ${attempt} of ${opts.retries} in ${delayMs} ms`),
      };
      await ctx.withLedger(false, async (ledger) => {
        if (pipeline !== undefined) await ledger.pipeline(pipeline);
        const handler = argv.length > 0 ? runCommand(argv, childEnvironment(ctx.deps.env, opts.passLedgerEnv ?? false)) : (event: RecordedEvent) => ctx.out(eventJson(event));
        const stored = opts.consumer === undefined ? null : await ledger.store.consumers.get(opts.consumer);
        if (stored !== null && opts.fromPosition !== undefined) {
          ctx.note(`runledger: consumer ${opts.consumer} has already handled events up to ${stored}; it resumes there and --from-position is ignored`);
        }
        const subscription = await ledger.subscribe(options, handler);
        ctx.note(
          `runledger: following from position ${subscription.startedAfter + 1}${opts.consumer === undefined ? '' : ` (consumer ${opts.consumer})`}; Ctrl-C to stop`,
        );
        // A command in hand finishes and is acknowledged before follow stops; with no command, a signal ends it at once.
        const stop = () => void subscription.stop();
        if (argv.length > 0) {
          ctx.deps.signals?.on('SIGINT', stop);
          ctx.deps.signals?.on('SIGTERM', stop);
        }
        try {
          await subscription.done;
        } finally {
          if (argv.length > 0) {
            ctx.deps.signals?.off('SIGINT', stop);
            ctx.deps.signals?.off('SIGTERM', stop);
          }
        }
      });
    });
}

function registerConsumersCommand(program: Command, ctx: CliContext): void {
  program
    .command('consumers')
    .summary('the durable consumers of `follow --consumer`: where each got to and how far behind the head it is')
    .option('--json', 'print one JSON document')
    .addHelpText('after', '\nExamples:\n  runledger consumers\n  runledger consumers --json')
    .action(async (opts: { json?: boolean }) => {
      const { head, consumers } = await ctx.withLedger(false, async (ledger) => ({ head: await ledger.store.head(), consumers: await ledger.store.consumers.list() }));
      const rows = consumers.map((c) => ({ ...c, behind: Math.max(0, head.position - c.position) }));
      if (opts.json) return ctx.json({ head: head.position, consumers: rows });
      if (rows.length === 0) return ctx.out('no consumers yet; start one with `runledger follow --consumer <name>`');
      ctx.out(formatTable(['CONSUMER', 'POSITION', 'BEHIND', 'UPDATED'], rows.map((c) => [c.name, String(c.position), String(c.behind), inZone(c.updatedAt, 'UTC')])));
    });
}

/** Runs the command for one event: the event on stdin, its fields in the environment; resolves on exit 0. */
function runCommand(argv: string[], env: Readonly<Record<string, string | undefined>>): (event: RecordedEvent) => Promise<void> {
  const [file, ...args] = argv as [string, ...string[]];
  return (event) =>
    new Promise<void>((resolve, reject) => {
      const child = spawn(file, args, { stdio: ['pipe', 'inherit', 'inherit'], env: { ...env, ...eventEnvironment(event) } });
      // A command that does not read its stdin closes it early; that is its business, not a failure.
      child.stdin.on('error', () => undefined);
      child.stdin.end(`${eventJson(event)}\n`);
      child.on('error', (error: NodeJS.ErrnoException) => reject(new Error(`cannot run '${file}': ${error.code === 'ENOENT' ? 'no such command' : error.message}`)));
      child.on('close', (code, signal) => {
        if (code === 0) resolve();
        else reject(new Error(signal ? `killed by ${signal}` : `exited with code ${code}`));
      });
    });
}
