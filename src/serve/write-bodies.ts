import { z } from 'zod';
import { RunType } from '../../events/common.js';
import { illFormedTextAt, illFormedTextMessage } from '../../events/well-formed-text.js';
import { parseDuration } from '../duration.js';
import { LedgerError } from '../errors.js';
import { FIRST_ISSUE_ONLY } from '../first-issue-only.js';
import type { ClearInput, StartInput } from '../ledger/ledger-types.js';

/**
 * The request bodies of the HTTP write API, one zod schema per command. They
 * carry the CLI's options under the same names (camelCase), so
 * `runledger start p 2026-11-02 --type manual --lease 2h` is
 * `POST /api/pipelines/p/runs {"date":"2026-11-02","type":"manual","lease":"2h"}`.
 * Unknown fields are refused: a misspelt `forse` must not start a run without the force.
 */
/** Most dates one `clear` request names; a range (`from`, `to`) has no such cap. */
export const MAX_CLEAR_DATES = 1000;

/** Most outputs one `succeed` request records (as many as an OpenLineage event may carry). */
export const MAX_OUTPUTS = 1000;

export const StartBody = z.strictObject({
  date: z.string().min(1),
  type: RunType.optional(),
  force: z.boolean().optional(),
  lease: z.string().min(1).optional(),
  intervalStart: z.string().min(1).optional(),
  intervalEnd: z.string().min(1).optional(),
  reason: z.string().optional(),
});
export type StartBody = z.infer<typeof StartBody>;

export const SucceedBody = z.strictObject({
  metrics: z.record(z.string(), z.unknown()).optional(),
  outputs: z.array(z.string()).max(MAX_OUTPUTS, `at most ${MAX_OUTPUTS} outputs are recorded in one request`).optional(),
});

export const FailBody = z.strictObject({
  error: z.string().min(1),
  code: z.string().min(1).nullable().optional(),
});

export const HeartbeatBody = z.strictObject({
  lease: z.string().min(1).optional(),
});

/** The body of a pause or a retirement: the reason is required; of an unpause or unretire, optional. */
export const ControlBody = z.strictObject({ reason: z.string().optional() });

export const ClearBody = z.strictObject({
  dates: z.array(z.string().min(1, { abort: true })).max(MAX_CLEAR_DATES, `at most ${MAX_CLEAR_DATES} dates are cleared in one request; clear a range with from and to, or send the dates in several requests`).optional(),
  from: z.string().min(1).optional(),
  to: z.string().min(1).optional(),
  onlyFailed: z.boolean().optional(),
  reason: z.string().optional(),
  dryRun: z.boolean().optional(),
});

/**
 * Parses a request body with a schema; a mismatch is `input.invalidBody`
 * (HTTP 400) naming the first field that is wrong, as the CLI names the option,
 * and a list past its cap `input.tooManyItems` naming the cap. Validation stops
 * at the first issue, so a body of many wrong items costs one.
 *
 * @example
 * parseBody(StartBody, { date: 5 }) // throws: body.date: expected string, received number
 */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const illFormed = illFormedTextAt(body, 'body');
  if (illFormed !== null) throw new LedgerError('input.illFormedText', illFormedTextMessage(illFormed));
  const result = schema.safeParse(body ?? {}, FIRST_ISSUE_ONLY);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const path = ['body', ...(issue?.path ?? []).map(String)].join('.');
  if (issue?.code === 'too_big' && issue.origin === 'array') throw new LedgerError('input.tooManyItems', `${path} holds ${countAt(body, issue.path)} items: ${issue.message}`);
  throw new LedgerError('input.invalidBody', `${path}: ${issue?.message ?? 'invalid'}; see 'Writing over HTTP' in docs/web.md for the fields`);
}

function countAt(body: unknown, path: readonly PropertyKey[]): number {
  const list = path.reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Record<PropertyKey, unknown>)[key] : undefined), body);
  return Array.isArray(list) ? list.length : 0;
}

/** A start body as the ledger's `StartInput`, with the CLI's checks (both interval bounds or neither). */
export function startInput(pipeline: string, body: StartBody): StartInput {
  if ((body.intervalStart === undefined) !== (body.intervalEnd === undefined)) {
    throw new LedgerError('input.incompleteInterval', 'give both intervalStart and intervalEnd, or neither');
  }
  return {
    pipeline,
    date: body.date,
    force: body.force ?? false,
    ...(body.type === undefined ? {} : { runType: body.type }),
    ...(body.lease === undefined ? {} : { lease: parseDuration(body.lease, 'lease') }),
    ...(body.reason === undefined ? {} : { reason: body.reason }),
    ...(body.intervalStart !== undefined && body.intervalEnd !== undefined ? { dataInterval: { start: body.intervalStart, end: body.intervalEnd } } : {}),
  };
}

/** A clear body as the ledger's `ClearInput`. */
export function clearInput(pipeline: string, body: z.infer<typeof ClearBody>): ClearInput {
  return {
    pipeline,
    dates: body.dates ?? [],
    onlyFailed: body.onlyFailed ?? false,
    dryRun: body.dryRun ?? false,
    ...(body.from === undefined ? {} : { from: body.from }),
    ...(body.to === undefined ? {} : { to: body.to }),
    ...(body.reason === undefined ? {} : { reason: body.reason }),
  };
}
