import { spawn } from 'node:child_process';
import { LedgerError } from '../../errors.js';
import type { Notification } from './notification.js';
import { durationOption, type Duration } from '../../ledger/library-options.js';

/** How long one delivery may take when the caller does not say (`notify --timeout`'s default). */
const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

/** Hands one notification over; throws `DeliveryError` when it did not arrive. */
export type Deliver = (notification: Notification) => Promise<void>;

/** A delivery that failed; `permanent` when trying the same again cannot help (the receiver refused it: HTTP 4xx). */
export class DeliveryError extends Error {
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super(message);
    this.name = 'DeliveryError';
    this.permanent = permanent;
  }
}

const FIELDS = ['kind', 'idempotencyKey', 'pipeline', 'date', 'runId', 'at', 'position', 'summary', 'error', 'code', 'attempt', 'runAfter', 'slaMs', 'actor'] as const;
const PLACEHOLDER = /\{\{\s*([A-Za-z]+)\s*(?:\|\s*([A-Za-z]+)\s*)?\}\}/g;

/**
 * What a `{{field|target}}` escapes beyond JSON, per target. Slack reads `<…>` as a link or a mention
 * (`<!channel>`, `<https://evil|text>`) and `&` as the start of an entity, and asks for exactly these three
 * to be escaped in any text it formats.
 */
const TARGETS = {
  slack: (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
} as const;
type Target = keyof typeof TARGETS;

/**
 * Fills a `--template`: each `{{field}}` of the notification (kind, pipeline, date, runId, at, summary, error, code,
 * attempt, runAfter, slaMs, actor, position, idempotencyKey) becomes its value escaped for a JSON string (null
 * becomes empty), and `{{document}}` the whole notification as JSON. `{{field|slack}}` also escapes `&`, `<` and
 * `>` as Slack asks, so a failure message cannot mention `<!channel>` or hide a link. The result must be JSON.
 *
 * @example
 * renderTemplate('{"text": "{{summary}}"}', n) // '{"text": "etl_orders 2026-11-03 failed: exited with code 1"}'
 * renderTemplate('{"text": "{{error|slack}}"}', n) // '{"text": "&lt;!channel&gt; disk full"}'
 */
export function renderTemplate(template: string, notification: Notification): string {
  const text = template.replace(PLACEHOLDER, (_, name: string, target: string | undefined) => {
    if (name === 'document') return JSON.stringify(notification);
    const value = notification[name as (typeof FIELDS)[number]];
    const plain = value === null || value === undefined ? '' : String(value);
    return JSON.stringify(target === undefined ? plain : TARGETS[target as Target](plain)).slice(1, -1);
  });
  try {
    JSON.parse(text);
  } catch (error) {
    throw new LedgerError('input.invalidNotify', `the template does not give JSON for ${notification.kind} ${notification.pipeline} ${notification.date} (${(error as Error).message}); put each {{field}} inside a JSON string, or use {{document}} as a value`);
  }
  return text;
}

/**
 * Refuses a template with a field the notification does not have, or one that does not give JSON, before the
 * notifier starts (exit 2), with a sample notification.
 */
export function checkTemplate(template: string): void {
  for (const [, name, target] of template.matchAll(PLACEHOLDER)) {
    if (name !== 'document' && !(FIELDS as readonly string[]).includes(name as string)) {
      throw new LedgerError('input.invalidNotify', `the template names {{${name}}}, which a notification does not have; use ${FIELDS.map((f) => `{{${f}}}`).join(', ')} or {{document}}`);
    }
    if (target !== undefined && (name === 'document' || !Object.hasOwn(TARGETS, target))) {
      throw new LedgerError('input.invalidNotify', `the template names {{${name}|${target}}}; ${name === 'document' ? '{{document}} takes no target' : `the targets are ${Object.keys(TARGETS).join(', ')}`}`);
    }
  }
  renderTemplate(template, {
    kind: 'failed',
    idempotencyKey: 'runledger-failed-0',
    pipeline: 'p',
    date: '2026-01-01',
    runId: 'R',
    at: '2026-01-01T00:00:00Z',
    position: 1,
    summary: 'p 2026-01-01 failed: "quoted" \\ text',
    error: 'e',
    code: null,
    attempt: 1,
    runAfter: null,
    slaMs: null,
    actor: 'a',
  });
}

/**
 * Delivery by HTTP POST: the notification (or the filled template) as JSON, with an `Idempotency-Key` header
 * that is the notification's own key. 2xx is delivered; 408, 429, 5xx, a network error or no answer within
 * `timeout` (`"10s"`, the default, or milliseconds) are worth another try; any other status is refused for good.
 *
 * @example
 * const deliver = webhookDelivery({ url: 'https://hooks.slack.com/services/…', timeout: '10s' });
 */
export function webhookDelivery(options: { url: string; template?: string; timeout?: Duration; /** @deprecated Use `timeout`; works until the next minor version. */ timeoutMs?: number; fetch?: typeof fetch }): Deliver {
  const post = options.fetch ?? fetch;
  const timeoutMs = durationOption(options, 'timeout', 'webhookDelivery') ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  return async (notification) => {
    const body = options.template === undefined ? JSON.stringify(notification) : renderTemplate(options.template, notification);
    let response: Response;
    try {
      response = await post(options.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': notification.idempotencyKey, 'user-agent': 'runledger-notify' },
        body,
        signal: AbortSignal.timeout(timeoutMs),
        redirect: 'error',
      });
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      const why = (error as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `${(error as Error).message}${cause ? ` (${cause})` : ''}`;
      throw new DeliveryError(`POST ${redactUrl(options.url)} failed: ${why}`, false);
    }
    // The body is read (and dropped) so the connection can be reused.
    await response.arrayBuffer().catch(() => undefined);
    if (response.ok) return;
    const retryable = response.status === 408 || response.status === 429 || response.status >= 500;
    throw new DeliveryError(`POST ${redactUrl(options.url)} answered HTTP ${response.status}`, !retryable);
  };
}

/**
 * Delivery by running a command (no shell): the notification as JSON on stdin, and its fields in the environment
 * (RUNLEDGER_NOTIFY_KIND, _PIPELINE, _DATE, _RUN_ID, _AT, _SUMMARY, _ERROR, _CODE, _ATTEMPT, _IDEMPOTENCY_KEY).
 * Exit 0 is delivered; anything else, or running past `timeout` (`"10s"`, the default, or milliseconds; then it is
 * killed), is tried again.
 *
 * @example
 * const deliver = commandDelivery({ argv: ['./page-oncall.sh'], env: process.env, timeout: '30s' });
 */
export function commandDelivery(options: { argv: readonly string[]; env: Readonly<Record<string, string | undefined>>; timeout?: Duration; /** @deprecated Use `timeout`; works until the next minor version. */ timeoutMs?: number }): Deliver {
  const [file, ...args] = options.argv as [string, ...string[]];
  const timeoutMs = durationOption(options, 'timeout', 'commandDelivery') ?? DEFAULT_DELIVERY_TIMEOUT_MS;
  return (n) =>
    new Promise<void>((resolve, reject) => {
      const env: Record<string, string> = {};
      for (const [k, v] of Object.entries(options.env)) if (v !== undefined) env[k] = v;
      Object.assign(env, notificationEnvironment(n));
      const child = spawn(file, args, { stdio: ['pipe', 'inherit', 'inherit'], env, timeout: timeoutMs, killSignal: 'SIGKILL' });
      child.stdin.on('error', () => undefined);
      child.stdin.end(`${JSON.stringify(n)}\n`);
      child.on('error', (error: NodeJS.ErrnoException) => reject(new DeliveryError(`cannot run '${file}': ${error.code === 'ENOENT' ? 'no such command' : error.message}`, error.code === 'ENOENT')));
      child.on('close', (code, signal) => {
        if (code === 0) resolve();
        else reject(new DeliveryError(`'${file}' ${signal ? `was killed by ${signal}${signal === 'SIGKILL' ? ` (over ${timeoutMs} ms?)` : ''}` : `exited with code ${code}`}`, false));
      });
    });
}

/** The `RUNLEDGER_NOTIFY_*` variables a notify command gets. */
export function notificationEnvironment(n: Notification): Record<string, string> {
  const text = (v: string | number | null) => (v === null ? '' : String(v));
  return {
    RUNLEDGER_NOTIFY_KIND: n.kind,
    RUNLEDGER_NOTIFY_PIPELINE: n.pipeline,
    RUNLEDGER_NOTIFY_DATE: n.date,
    RUNLEDGER_NOTIFY_RUN_ID: text(n.runId),
    RUNLEDGER_NOTIFY_AT: n.at,
    RUNLEDGER_NOTIFY_SUMMARY: n.summary,
    RUNLEDGER_NOTIFY_ERROR: text(n.error),
    RUNLEDGER_NOTIFY_CODE: text(n.code),
    RUNLEDGER_NOTIFY_ATTEMPT: text(n.attempt),
    RUNLEDGER_NOTIFY_IDEMPOTENCY_KEY: n.idempotencyKey,
  };
}

/** A webhook URL without its secret parts (Slack's and PagerDuty's URLs carry the token in the path or query) for messages. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname.split('/').length > 2 ? '/…' : u.pathname}`;
  } catch {
    return 'the webhook';
  }
}
