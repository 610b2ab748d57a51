import { LedgerError } from '../errors.js';

/** Deepest nesting a request body may have: OpenLineage events with column lineage nest about ten levels. */
export const MAX_BODY_DEPTH = 64;

/** Most items in one JSON array, or keys in one JSON object, of a request body. */
export const MAX_BODY_ENTRIES = 10_000;

/**
 * A JSON request body, or `input.invalidBody` / `input.tooManyItems` /
 * `input.bodyTooDeep` saying what is wrong with it; an empty body is no body.
 *
 * The shape is checked on the text before `JSON.parse` builds anything: one
 * pass that stops at the first list or object past `MAX_BODY_ENTRIES`
 * entries, or the first nesting past `MAX_BODY_DEPTH`. A 1 MB body of 330,000
 * empty lists is refused after its first 10,001, in well under a millisecond,
 * where parsing it whole cost a hundred and validating it seconds.
 *
 * @example
 * parseJsonBody('{"dates":["2026-11-02"]}') // { dates: ['2026-11-02'] }
 * parseJsonBody('{"dates":[[],[],…]}')     // throws input.tooManyItems: body.dates holds more than 10000 items…
 */
export function parseJsonBody(text: string): unknown {
  if (/^\s*$/.test(text)) return undefined;
  checkJsonShape(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new LedgerError('input.invalidBody', `the body is not valid JSON (${firstLine((error as Error).message)}); send one JSON document`);
  }
  // Only a key spelt __proto__ or constructor (or hidden in a \u escape) can be one: most bodies skip the walk.
  if (text.includes('__proto__') || text.includes('constructor') || text.includes('\\u')) {
    const path = forbiddenKeyPath(value);
    if (path !== null) {
      throw new LedgerError('input.invalidBody', `${path} is refused: a __proto__ or constructor.prototype key could change other objects; remove it from the body`);
    }
  }
  return value;
}

type Frame = { array: boolean; entries: number; keyStart: number; keyEnd: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

/**
 * Refuses a body nested deeper than `MAX_BODY_DEPTH` or with a list or object
 * of more than `MAX_BODY_ENTRIES` entries, naming where. Text that is not
 * JSON passes here and is refused by `JSON.parse`.
 */
function checkJsonShape(text: string): void {
  const frames: Frame[] = [];
  let lastStringStart = -1;
  let lastStringEnd = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const top = frames[frames.length - 1];
      if (top !== undefined && top.entries === 0) top.entries = 1;
      lastStringStart = i;
      i = endOfString(text, i);
      lastStringEnd = i;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      const top = frames[frames.length - 1];
      if (top !== undefined && top.entries === 0) top.entries = 1;
      if (frames.length === MAX_BODY_DEPTH) {
        throw new LedgerError('input.bodyTooDeep', `${pathOf(text, frames)} nests more than ${MAX_BODY_DEPTH} levels deep; a body may nest at most ${MAX_BODY_DEPTH} levels of lists and objects`);
      }
      frames.push({ array: c === OPEN_BRACKET, entries: 0, keyStart: -1, keyEnd: -1 });
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      frames.pop();
    } else if (c === COMMA) {
      const top = frames[frames.length - 1];
      if (top !== undefined && ++top.entries > MAX_BODY_ENTRIES) {
        throw new LedgerError(
          'input.tooManyItems',
          `${pathOf(text, frames.slice(0, -1))} holds more than ${MAX_BODY_ENTRIES} ${top.array ? 'items' : 'keys'}; a body takes at most ${MAX_BODY_ENTRIES} in one ${top.array ? 'list' : 'object'}: send fewer in one request`,
        );
      }
    } else if (c === COLON) {
      const top = frames[frames.length - 1];
      if (top !== undefined && !top.array) {
        top.keyStart = lastStringStart;
        top.keyEnd = lastStringEnd;
      }
    } else if (c > 0x20) {
      // The first entry of a list or object starts with any value or key; each ',' starts one more.
      const top = frames[frames.length - 1];
      if (top !== undefined && top.entries === 0) top.entries = 1;
    }
  }
}

/** The index of the quote that closes the string opened at `start` (or the text's end). */
function endOfString(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote < 0) return text.length;
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote;
    i = quote + 1;
  }
}

/** Where the innermost of `frames` sits in the body, as `body.dates[3].x`, shortened past 200 characters. */
function pathOf(text: string, frames: readonly Frame[]): string {
  let path = 'body';
  for (const frame of frames) {
    if (frame.array) path += `[${Math.max(frame.entries - 1, 0)}]`;
    else path += `.${keyText(text, frame)}`;
    if (path.length > 200) return `${path.slice(0, 200)}…`;
  }
  return path;
}

function keyText(text: string, frame: Frame): string {
  const literal = text.slice(frame.keyStart, frame.keyEnd + 1);
  try {
    const key = JSON.parse(literal) as unknown;
    return typeof key === 'string' ? key.slice(0, 60) : literal.slice(0, 60);
  } catch {
    return literal.slice(0, 60);
  }
}

/** A parsed node and how it was reached; the path is spelt out only for the one that is refused. */
type Visit = { node: unknown; parent: Visit | null; key: string | number };

function forbiddenKeyPath(value: unknown): string | null {
  const stack: Visit[] = [{ node: value, parent: null, key: '' }];
  while (stack.length > 0) {
    const visit = stack.pop() as Visit;
    const node = visit.node;
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      node.forEach((item: unknown, i) => {
        if (item !== null && typeof item === 'object') stack.push({ node: item, parent: visit, key: i });
      });
      continue;
    }
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      if (key === '__proto__') return `${spelt(visit)}.__proto__`;
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) return `${spelt(visit)}.constructor.prototype`;
      if (child !== null && typeof child === 'object') stack.push({ node: child, parent: visit, key });
    }
  }
  return null;
}

function spelt(visit: Visit): string {
  const keys: Array<string | number> = [];
  for (let at: Visit | null = visit; at?.parent; at = at.parent) keys.push(at.key);
  return keys.reverse().reduce<string>((path, key) => (typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`), 'body');
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? text;
}
