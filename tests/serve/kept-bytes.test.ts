import Fastify from 'fastify';
import { describe, expect, test } from 'vitest';
import { keptBytes, sendKept } from '../../src/serve/kept-bytes.js';

describe('sendKept', () => {
  test.each([
    ['one piece', ['<p>one piece</p>']],
    ['a few small pieces', ['<!doctype html>', '<p>ü', 'ber ✓</p>', '</html>\n']],
    ['pieces of megabytes', ['<!doctype html>', '<p>ü', 'ber ✓</p>'.repeat(100_000), '<p>', 'ü'.repeat(70_000), '</html>\n']],
  ])('when the answer is kept as %s then it is sent as their bytes in order, with their total length', async (_label, texts) => {
    const kept = keptBytes(texts.map((text) => Buffer.from(text, 'utf8')));
    const app = Fastify();
    app.get('/', async (_request, reply) => sendKept(reply.type('text/html; charset=utf-8'), kept));
    const first = await app.inject({ url: '/' });
    const second = await app.inject({ url: '/' });
    await app.close();
    for (const res of [first, second]) {
      expect(res.rawPayload.equals(Buffer.from(texts.join(''), 'utf8'))).toBe(true);
      expect(res.headers['content-length']).toBe(String(kept.length));
      expect(res.headers['transfer-encoding']).toBeUndefined();
    }
  });
});
