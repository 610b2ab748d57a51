import type { Command } from 'commander';
import { parseDuration } from '../../duration.js';
import { LedgerError } from '../../errors.js';
import { commandDelivery, checkTemplate, redactUrl, webhookDelivery, type Deliver } from '../../ops/notify/deliver-notification.js';
import { parseNotifyKinds } from '../../ops/notify/notification.js';
import { runNotifier } from '../../ops/notify/run-notifier.js';
import { childEnvironment } from '../../secrets.js';
import type { CliContext } from '../cli-context.js';
import { readBoundedText } from '../read-bounded-file.js';
import { parseWholeNumber } from '../../ledger/parse-whole-number.js';

type NotifyOpts = {
  on: string;
  webhook?: string;
  template?: string;
  consumer?: string;
  pipeline?: string;
  fromPosition?: string;
  timeout: string;
  retries: string;
  retryDelay: string;
  checkEvery: string;
  once?: boolean;
  passLedgerEnv?: boolean;
};

export function registerNotifyCommand(program: Command, ctx: CliContext): void {
  program
    .command('notify')
    .summary('tell a webhook or a command when a date fails, stalls, is late or recovers (a durable consumer)')
    .description(
      'A durable consumer, like `follow --consumer`: it keeps its position in the ledger\'s database and, restarted, ' +
        'resumes after the last notification it delivered. Each notification is one JSON document (kind, pipeline, date, ' +
        'runId, at, summary, error, code, attempt, idempotencyKey, …), POSTed to --webhook with an Idempotency-Key header, or ' +
        'given to the command after -- on stdin with RUNLEDGER_NOTIFY_* in its environment.\n\n' +
        'failed: a run failed and no retry is scheduled (a failure that will be retried is not news yet). recovered: a date ' +
        'whose last attempt failed for good succeeded, or was marked. stalled: a running date\'s lease ran out (no heartbeat). ' +
        "late: a date not done (success or skipped) by its run-after plus the pipeline's --sla. overdue: a date waiting for a " +
        "retry that nobody started by its time plus the pipeline's lease (its runner stopped). stalled, late and overdue come from " +
        'the clock, checked every --check-every; the instant checked up to is kept as the consumer <name>.deadlines, so a ' +
        'restart neither repeats nor skips a deadline. A new consumer reports from now on.\n\n' +
        'Delivery is at least once: a notification is retried (--retries, doubling from --retry-delay, each try at most ' +
        '--timeout); a notifier killed after a delivery but before it stored its position delivers it again with the same ' +
        'Idempotency-Key, derived from the event (or the date and deadline), so the receiver can drop the copy. HTTP 408, 429 ' +
        'and 5xx are retried, other 4xx stop the notifier at once; when the retries are spent it stops with exit 1 and its ' +
        'position stays before that notification. --template FILE sends your own JSON instead: {{summary}}, {{pipeline}}, ' +
        '{{date}}, {{kind}}, {{error}}, … inside JSON strings, {{document}} for the whole notification.',
    )
    .argument('[command...]', 'after --: the command to run per notification')
    .requiredOption('--on <kinds>', 'what to tell: failed, stalled, late, recovered, overdue (a retry nobody started by its time plus the lease) (comma-separated)')
    .option('--webhook <url>', 'POST each notification here (https://…, or http://127.0.0.1:… for a local receiver)')
    .option('--template <file>', 'a JSON template for the webhook body, e.g. a Slack message: {"text": "{{summary}}"}')
    .option('--consumer <name>', 'the durable consumer name its position is kept under (required)')
    .option('--pipeline <name>', 'only this pipeline (default: every pipeline)')
    .option('--from-position <n>', 'where a new consumer starts (default: events appended from now on)')
    .option('--timeout <duration>', 'the longest one delivery may take', '10s')
    .option('--retries <n>', 'tries of a notification after the first before notify stops', '8')
    .option('--retry-delay <duration>', 'the pause before the first retry, doubled after each (at most 1m)', '1s')
    .option('--check-every <duration>', 'how often to look at the clock for stalled and late dates', '30s')
    .option('--once', 'deliver what is due now (events up to the head, deadlines up to now), then exit')
    .option('--pass-ledger-env', "pass runledger's own credentials to the command; by default they are removed from its environment")
    .addHelpText(
      'after',
      '\nExamples:\n  runledger notify --on failed,stalled,late --webhook https://hooks.example.com/runledger --consumer oncall\n' +
        '  runledger notify --on failed,recovered --webhook "$SLACK_WEBHOOK_URL" --template slack.json --consumer slack\n' +
        "  runledger notify --on failed --consumer pager -- sh -c 'echo \"$RUNLEDGER_NOTIFY_SUMMARY\" | mail -s runledger oncall@example.com'",
    )
    .action(async (argv: string[], opts: NotifyOpts) => {
      const kinds = parseNotifyKinds(opts.on);
      if (opts.consumer === undefined) throw new LedgerError('input.missingOption', 'notify keeps its position as a durable consumer: name it with --consumer <name>, e.g. --consumer oncall');
      if ((opts.webhook === undefined) === (argv.length === 0)) {
        throw new LedgerError('input.invalidNotify', 'say where notifications go: --webhook <url>, or a command after --, one of them');
      }
      if (opts.template !== undefined && opts.webhook === undefined) throw new LedgerError('input.invalidNotify', '--template shapes the webhook body; it needs --webhook');
      const timeoutMs = parseDuration(opts.timeout, '--timeout');
      const retries = parseWholeNumber(opts.retries, '--retries', 0);
      const retryDelayMs = parseDuration(opts.retryDelay, '--retry-delay');
      const checkEveryMs = parseDuration(opts.checkEvery, '--check-every');
      const fromPosition = opts.fromPosition === undefined ? undefined : parseWholeNumber(opts.fromPosition, '--from-position', 1);
      const template = opts.template === undefined ? undefined : readBoundedText(opts.template, { what: '--template file', maxBytes: 1024 * 1024, unreadable: 'input.invalidNotify' });
      if (template !== undefined) checkTemplate(template);
      let deliver: Deliver;
      if (opts.webhook !== undefined) {
        const url = checkWebhookUrl(opts.webhook);
        deliver = webhookDelivery({ url, timeout: timeoutMs, ...(template === undefined ? {} : { template }) });
      } else deliver = commandDelivery({ argv, env: childEnvironment(ctx.deps.env, opts.passLedgerEnv ?? false), timeout: timeoutMs });
      const where = opts.webhook !== undefined ? redactUrl(opts.webhook) : argv[0];
      const controller = new AbortController();
      const stop = () => controller.abort('stopped');
      ctx.deps.signals?.on('SIGINT', stop);
      ctx.deps.signals?.on('SIGTERM', stop);
      try {
        await ctx.withLedger(false, async (ledger) => {
          ctx.note(`runledger: notifying ${where} of ${kinds.join(', ')} (consumer ${opts.consumer})${opts.once ? '' : '; Ctrl-C to stop'}`);
          const { delivered } = await runNotifier(ledger, {
            consumer: opts.consumer as string,
            kinds,
            deliver,
            retries,
            retryDelay: retryDelayMs,
            checkEvery: checkEveryMs,
            signal: controller.signal,
            ...(opts.once ? { once: true } : {}),
            ...(opts.pipeline === undefined ? {} : { pipeline: opts.pipeline }),
            ...(fromPosition === undefined ? {} : { fromPosition }),
            onDelivered: (n) => ctx.note(`runledger: notified ${n.kind}: ${n.summary}`),
            onRetry: (n, attempt, error, delayMs) => ctx.note(`runledger: the ${n.kind} notification of ${n.pipeline} ${n.date} was not delivered (${error.message}); retry ${attempt} of ${retries} in ${delayMs} ms`),
          });
          if (opts.once) ctx.note(`runledger: delivered ${delivered} notification${delivered === 1 ? '' : 's'}`);
        });
      } finally {
        ctx.deps.signals?.off('SIGINT', stop);
        ctx.deps.signals?.off('SIGTERM', stop);
      }
    });
}

/** An http(s) URL; anything else is refused before the notifier starts. */
function checkWebhookUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LedgerError('input.invalidNotify', `--webhook '${text}' is not a URL; give one like https://hooks.example.com/runledger`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new LedgerError('input.invalidNotify', `--webhook must be an http or https URL, not ${url.protocol}`);
  return url.toString();
}
