import { afterEach, describe, expect, test, vi } from 'vitest';
import { z } from 'zod';
import { FIRST_ISSUE_ONLY } from '../../src/first-issue-only.js';
import { parseLineageEvent } from '../../src/ingest/openlineage/openlineage-event.js';
import { MAX_BODY_DEPTH, MAX_BODY_ENTRIES, parseJsonBody } from '../../src/serve/parse-json-body.js';
import { ClearBody, parseBody } from '../../src/serve/write-bodies.js';

afterEach(() => {
  vi.restoreAllMocks();
});

function refusal(text: string): { code: string; message: string } | null {
  try {
    parseJsonBody(text);
    return null;
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
}

describe('a JSON body is measured before it is built', () => {
  test.each([
    ['a list one past the cap', JSON.stringify({ dates: Array.from({ length: MAX_BODY_ENTRIES + 1 }, () => 'd') }), 'input.tooManyItems', 'body.dates holds more than 10000 items'],
    ['an object one past the cap', JSON.stringify({ metrics: Object.fromEntries(Array.from({ length: MAX_BODY_ENTRIES + 1 }, (_, i) => [`k${i}`, 1])) }), 'input.tooManyItems', 'body.metrics holds more than 10000 keys'],
    ['a list inside a list, under a key with a quote', JSON.stringify([{ 'a"b': [0, [...Array.from({ length: MAX_BODY_ENTRIES + 1 }, () => ({}))]] }]), 'input.tooManyItems', 'body[0].a"b[1] holds more than'],
    ['nesting one past the cap', `${'['.repeat(MAX_BODY_DEPTH + 1)}${']'.repeat(MAX_BODY_DEPTH + 1)}`, 'input.bodyTooDeep', 'nests more than 64 levels deep'],
    ['brackets inside strings do not count', JSON.stringify({ s: '['.repeat(500), t: ',' .repeat(MAX_BODY_ENTRIES + 5) }), null, ''],
    ['a list exactly at the cap', JSON.stringify({ dates: Array.from({ length: MAX_BODY_ENTRIES }, () => 'd') }), null, ''],
    ['nesting exactly at the cap', `${'['.repeat(MAX_BODY_DEPTH)}${']'.repeat(MAX_BODY_DEPTH)}`, null, ''],
    ['a __proto__ key spelt with an escape', '{"a":{"\\u005f_proto__":{"x":1}}}', 'input.invalidBody', 'body.a.__proto__ is refused'],
    ['constructor.prototype inside a list', '{"a":[1,{"constructor":{"prototype":{}}}]}', 'input.invalidBody', 'body.a[1].constructor.prototype is refused'],
    ['text that is not JSON', '{"a":', 'input.invalidBody', 'the body is not valid JSON'],
  ])('%s', (_label, text, code, says) => {
    const refused = refusal(text);
    if (code === null) expect(refused).toBeNull();
    else expect(refused).toEqual({ code, message: expect.stringContaining(says) });
  });

  test('a body past a cap is refused without JSON.parse building it', () => {
    const body = JSON.stringify({ dates: Array.from({ length: 330_000 }, () => []) });
    const parse = vi.spyOn(JSON, 'parse');
    expect(refusal(body)?.code).toBe('input.tooManyItems');
    // Only the key naming the place ('"dates"') is decoded.
    expect(parse.mock.calls.map(([text]) => text)).toEqual(['"dates"']);
  });

  test('an empty body is no body', () => {
    expect(parseJsonBody('  \n')).toBeUndefined();
  });
});

describe('validation stops at the first wrong item', () => {
  test('a list of 5,000 wrong items is checked up to the first', () => {
    let checked = 0;
    // Rules on list items abort (`abort: true`), as the write bodies' and OpenLineage's do.
    const schema = z.strictObject({ items: z.array(z.string().refine(() => (checked += 1) < 0, { abort: true })) });
    expect(() => parseBody(schema, { items: Array.from({ length: 5_000 }, () => 'x') })).toThrow('body.items.0:');
    expect(checked).toBe(1);
  });

  test('one issue comes back for 900 wrong dates (the zod version keeps its abort-early flag)', () => {
    const result = ClearBody.safeParse({ dates: Array.from({ length: 900 }, () => 5) }, FIRST_ISSUE_ONLY);
    expect(result.error?.issues).toHaveLength(1);
  });

  test('a list past its cap is refused before its items are checked, naming the cap', () => {
    expect(() => parseBody(ClearBody, { dates: Array.from({ length: 1_001 }, () => '2026-11-02') })).toThrow('body.dates holds 1001 items: at most 1000 dates are cleared in one request');
  });

  test('1,000 inputs with a bad facet URI each are checked up to the first', () => {
    const inputs = Array.from({ length: 1_000 }, (_, i) => ({ namespace: 'n', name: `d${i}`, facets: { schema: { _producer: 'not a uri', _schemaURL: 'not a uri' } } }));
    const event = { eventTime: '2026-11-02T00:00:00Z', producer: 'https://x.example', run: { runId: '01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d3e' }, job: { namespace: 'n', name: 'j' }, inputs };
    const regex = vi.spyOn(RegExp.prototype, 'test');
    expect(parseLineageEvent(event)).toMatchObject({ ok: false, path: 'inputs[0].facets.schema._producer' });
    // The URI rule's own checks (other rules test every string too).
    const uriChecks = regex.mock.contexts.filter((pattern) => (pattern as RegExp).source.startsWith('^[A-Za-z][A-Za-z0-9+.-]*:'));
    expect(uriChecks.length).toBeGreaterThan(0);
    expect(uriChecks.length).toBeLessThan(10);
  });

  test('an OpenLineage event with 5,000 inputs is refused naming the cap', () => {
    const event = { eventTime: '2026-11-02T00:00:00Z', producer: 'https://x.example', run: { runId: '01932a3c-7e5e-7b4c-9a6d-0f5b8a1c2d3e' }, job: { namespace: 'n', name: 'j' }, inputs: Array.from({ length: 5_000 }, () => ({})) };
    expect(parseLineageEvent(event)).toEqual({ ok: false, path: 'inputs', message: 'holds more than 1000 input datasets; an event may carry at most 1000' });
  });
});
